#pragma once
// NVTX: one domain, "normbench"; a registered-string push/pop range per case named
// "<op> <variant> <problem name> <dtype>" (no '/': ncu's filter reads '/' as a nesting separator,
// so a name with '/' can never be selected), with "validate" and "timed" ranges inside, so
//   ncu --nvtx --nvtx-include "normbench@softmax onchip m4096_n393216 fp32/" ...
// selects exactly one case.
#include <memory>
#include <string>

namespace nb {

std::string nvtx_case_name(const std::string& op, const std::string& variant, const std::string& problem_id);
// What follows a case's range name in ncu's --nvtx-include: "normbench@<name>/".
std::string ncu_nvtx_filter(const std::string& case_name);

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);  // pushes; the name is registered once
  ~NvtxRange();                                  // pops
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace nb
