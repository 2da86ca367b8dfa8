#include "harness/run/run_case.hpp"

#include "harness/nvtx_ranges.hpp"

namespace nb {

std::string RunCase::name() const { return op->name() + "/" + variant->name() + "/" + problem.id(); }

std::string RunCase::nvtx_name() const { return nvtx_case_name(op->name(), variant->name(), problem.id()); }

}  // namespace nb
