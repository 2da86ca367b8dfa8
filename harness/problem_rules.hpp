#pragma once
// What an op declares about its problems (parameters, dtypes, relational checks), apart from the
// op: enough to build a problem, name it and parse its id back. Pure host code, so that the
// parsers of --params and problem ids are fuzzed without the op specs' CUDA (docs/fuzzing.md).
#include <functional>
#include <string>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/problem.hpp"

namespace nb {

struct ProblemRules {
  std::string op;                                    // "rmsnorm_nchw"
  std::vector<ParamDecl> decls;
  std::vector<DType> dtypes;                         // the element types the op is stated in
  std::function<std::string(const Params&)> check;   // relational checks: "" when fine
};

// Builds a problem: fills defaults, checks ranges and the rules' check, names it. Throws UsageError.
Problem make_problem(const ProblemRules& rules, const Params& given, DType dtype);

// Rebuilds a problem from its id ("rmsnorm_nchw/n16_c64_h256_w256/fp32"; the op and the dtype
// may be left out). Throws UsageError.
Problem parse_problem_id(const ProblemRules& rules, const std::string& id);

}  // namespace nb
