#pragma once
// One op of normbench's table by name, for the tests of that op; throws for an unknown name.
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/ops.hpp"

namespace nb::test {

inline std::unique_ptr<OpSpec> op_named(const std::string& name) {
  for (auto& op : make_ops())
    if (op->name() == name) return std::move(op);
  throw std::logic_error("no op " + name);
}

}  // namespace nb::test
