#include "harness/run/run_case.hpp"

#include "harness/nvtx_ranges.hpp"

namespace nb {

std::string RunCase::name() const { return nvtx_case_name(op->name(), variant->name(), problem.id()); }

}  // namespace nb
