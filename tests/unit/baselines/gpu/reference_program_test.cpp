// Every op's float64 reference program, run on the host executor over every quick problem and
// distribution, against the Eigen reference and the host's draws and conditions: what the GPU runs
// is checked here without a GPU (the GPU tests run the same check on the device).
#include <gtest/gtest.h>

#include "harness/registry.hpp"
#include "harness/validation/host_executor.hpp"
#include "kernels/ops.hpp"
#include "quick_problems.hpp"
#include "reference_program_check.hpp"

namespace nb::test {
namespace {

const Registry& registry() {
  static const Registry r(make_ops());
  return r;
}

class ReferenceProgram : public testing::TestWithParam<OpProblem> {};

TEST_P(ReferenceProgram, MatchesEigenOnEveryDistribution) {
  const auto& [op, problem] = GetParam();
  HostExecutor host;
  Executor ex(host);
  check_every_distribution(*op, problem, ex, host_memory, "on the host executor");
}

INSTANTIATE_TEST_SUITE_P(QuickSuite, ReferenceProgram, testing::ValuesIn(quick_problems(registry(), true)),
                         problem_test_name);

}  // namespace
}  // namespace nb::test
