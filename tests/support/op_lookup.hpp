#pragma once
// One op of normbench's table by name (throws for an unknown name), and whether a distribution is
// one of a problem's stress distributions: for the tests of one op.
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

inline bool is_stress(const OpSpec& op, const Problem& p, Distribution d) {
  for (const StressDistribution& s : op.stress(p))
    if (s.distribution == d) return true;
  return false;
}

}  // namespace nb::test
