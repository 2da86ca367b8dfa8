#pragma once
// The message of the nb::UsageError an action throws, for tests that check what an error names.
#include <string>

#include "harness/errors.hpp"

namespace nb::test {

// The UsageError message of `action`, or "" when it did not throw one.
template <typename Action>
std::string usage_error_of(Action action) {
  try {
    action();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace nb::test
