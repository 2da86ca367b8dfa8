#pragma once
// The problem rules the parameter and problem-id targets build against: every kind of declaration
// the ops make (required and defaulted integer dims, defaulted reals, ranges up to 2^30 and 1e9, a
// relational check, dtype lists), standing in for the op specs, which carry CUDA.
#include <limits>
#include <vector>

#include "fuzz_support.hpp"
#include "harness/problem_rules.hpp"

namespace nb::fuzz {

inline std::vector<ProblemRules> problem_rules_fixture() {
  ProblemRules norm{"norm_nchw",
                    {{"n", true, 0, true, 1, 1e9, "batch"},
                     {"c", true, 0, true, 1, 1e7, "channels"},
                     {"h", true, 1, false, 1, 1e7, "height"},
                     {"w", true, 1, false, 1, 1e7, "width"},
                     {"eps", false, 1e-5, false, 0, 1, "added to the variance"},
                     {"momentum", false, 0.1, false, 0, 1, "running statistics update"}},
                    {DType::f32, DType::bf16, DType::f16},
                    [](const Params& p) {
                      const double m = p.real("n") * p.real("h") * p.real("w");
                      return m < 2 ? std::string("N*H*W must be at least 2") : std::string();
                    }};
  ProblemRules linear{"linear_rows",
                      {{"m", true, 0, true, 1, 1 << 30, "rows"},
                       {"n", true, 0, true, 1, 1 << 30, "features"},
                       {"k", true, 0, true, 1, 1 << 30, "inputs"},
                       {"g", true, 1, false, 1, 1 << 30, "groups; must divide n"},
                       {"eps", false, 1e-5, false, 1e-12, 1.0, "added to the variance"}},
                      {DType::f32, DType::tf32},
                      [](const Params& p) {
                        const double limit = double(std::numeric_limits<int>::max());
                        if (p.real("m") * p.real("k") > limit || p.real("n") * p.real("k") > limit)
                          return std::string("every matrix must hold fewer than 2^31 elements");
                        return p.dim("n") % p.dim("g") != 0 ? std::string("G must divide N") : std::string();
                      }};
  return {norm, linear};
}

// The promise of problem.hpp: the id alone rebuilds the problem (the same id, the same values).
inline void require_id_rebuilds(const ProblemRules& rules, const Problem& problem) {
  const Problem rebuilt = parse_problem_id(rules, problem.id());
  require(rebuilt.id() == problem.id(), "the id " + problem.id() + " parses back to itself");
  require(rebuilt.params.values() == problem.params.values(), "the id " + problem.id() + " rebuilds the problem's values");
}

}  // namespace nb::fuzz
