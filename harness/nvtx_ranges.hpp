#pragma once
// NVTX: one domain, "normbench"; a registered-string push/pop range per case named
// "<op>/<variant>/<problem-id>", with "validate" and "timed" ranges inside, so
//   ncu --nvtx --nvtx-include "normbench@<op>/<variant>/<problem-id>/" ...
// selects exactly one case.
#include <memory>
#include <string>

namespace nb {

std::string nvtx_case_name(const std::string& op, const std::string& variant, const std::string& problem_id);

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);  // pushes; the name is registered once
  ~NvtxRange();                                  // pops
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace nb
