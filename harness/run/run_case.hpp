#pragma once
// The unit of a run: one variant of one op on one problem, with the suites it was chosen from.
#include <string>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb {

struct RunCase {
  const OpSpec* op = nullptr;
  Variant* variant = nullptr;
  Problem problem;
  std::vector<std::string> suites;

  std::string name() const;       // "<op>/<variant>/<problem-id>": the benchmark name
  std::string nvtx_name() const;  // "<op> <variant> <problem name> <dtype>": the NVTX range
};

}  // namespace nb
