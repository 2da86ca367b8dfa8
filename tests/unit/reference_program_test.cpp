// Every op's float64 reference program, run on the host executor over every quick problem and
// distribution, against the Eigen reference and the host's draws and conditions: what the GPU runs
// is checked here without a GPU (the GPU tests run the same check on the device).
#include <gtest/gtest.h>

#include <cstdio>

#include "harness/registry.hpp"
#include "harness/validation/host_executor.hpp"
#include "kernels/ops.hpp"
#include "reference_program_check.hpp"

namespace nb {
namespace {

const Registry& registry() {
  static const Registry r(make_ops());
  return r;
}

struct ProgramProblem {
  const OpSpec* op;
  Problem problem;
};

void PrintTo(const ProgramProblem& p, std::ostream* out) { *out << p.problem.id(); }

std::vector<ProgramProblem> quick_problems_with_programs() {
  std::vector<ProgramProblem> all;
  for (const auto& op : registry().ops())
    if (op->has_reference_program())
      for (const auto& p : op->problems_in("quick")) all.push_back({op.get(), p});
  return all;
}

class ReferenceProgram : public testing::TestWithParam<ProgramProblem> {};

TEST_P(ReferenceProgram, MatchesEigenOnEveryDistribution) {
  const auto& [op, problem] = GetParam();
  HostExecutor host;
  Executor ex(host);
  test::ProgramAgreement worst;
  for (std::size_t d = 0; d < all_distributions().size(); ++d) {
    auto memory = test::host_memory();
    const test::ProgramAgreement a = test::check_reference_program(*op, problem, all_distributions()[d], 5000 + d, ex, *memory);
    worst.worst_normwise = std::max(worst.worst_normwise, a.worst_normwise);
    worst.worst_elementwise = std::max(worst.worst_elementwise, a.worst_elementwise);
    worst.worst_condition_gap = std::max(worst.worst_condition_gap, a.worst_condition_gap);
  }
  std::printf("%s: program against Eigen, worst normwise %.2e, elementwise %.2e, condition gap %.2e\n",
              problem.id().c_str(), worst.worst_normwise, worst.worst_elementwise, worst.worst_condition_gap);
}

INSTANTIATE_TEST_SUITE_P(QuickSuite, ReferenceProgram, testing::ValuesIn(quick_problems_with_programs()),
                         [](const testing::TestParamInfo<ProgramProblem>& info) {
                           std::string name = info.param.problem.id();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace nb
