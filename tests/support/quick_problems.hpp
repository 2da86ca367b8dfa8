#pragma once
// The quick suite's problems as the parameters of a GPU or CPU test, each named by its problem id.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "harness/registry.hpp"

namespace nb::test {

struct OpProblem {
  const OpSpec* op;
  Problem problem;
};

inline void PrintTo(const OpProblem& p, std::ostream* out) { *out << p.problem.id(); }

// Every quick problem of the registry's ops, or of those with a reference program only.
inline std::vector<OpProblem> quick_problems(const Registry& registry, bool with_reference_program_only = false) {
  std::vector<OpProblem> all;
  for (const auto& op : registry.ops())
    if (!with_reference_program_only || op->has_reference_program())
      for (const auto& p : op->problems_in("quick")) all.push_back({op.get(), p});
  return all;
}

// The test's name: the problem id with every character but letters and digits as '_'.
inline std::string problem_test_name(const testing::TestParamInfo<OpProblem>& info) {
  std::string name = info.param.problem.id();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

}  // namespace nb::test
