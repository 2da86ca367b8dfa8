// gemm_scale_bn_bwd's reference program on the host executor, beyond the quick suite that
// reference_program_test covers: small odd shapes in both precisions over every distribution, and
// a batch longer than one chunk of slice_sums (4096 rows), whose column sums the program then adds
// in another order than Eigen. Each is checked as the quick problems are (reference_program_check):
// the draws, the forward's saved tensors, the six gradients and their conditions, the audit.
#include <gtest/gtest.h>

#include "harness/validation/host_executor.hpp"
#include "harness/validation/slice_reduce.cuh"
#include "kernels/ops.hpp"
#include "reference_program_check.hpp"

namespace nb::test {
namespace {

std::unique_ptr<OpSpec> backward_op() {
  for (auto& op : make_ops())
    if (op->name() == "gemm_scale_bn_bwd") return std::move(op);
  throw std::logic_error("no op gemm_scale_bn_bwd");
}

// The shared check on every distribution, on the host executor.
void check_on_host(const OpSpec& op, const Problem& p) {
  HostExecutor host;
  Executor ex(host);
  check_every_distribution(op, p, ex, host_memory, "on the host executor");
}

TEST(GemmBwdProgram, MatchesEigenOnSmallOddShapes) {
  const auto op = backward_op();
  ASSERT_TRUE(op->has_reference_program());
  for (const DType dtype : {DType::f32, DType::tf32})
    for (const double m : {3.0, 5.0, 17.0, 67.0})
      check_on_host(*op, op->make_problem({{"m", m}, {"n", 33}, {"k", 17}}, dtype));
}

TEST(GemmBwdProgram, MatchesEigenOverMoreRowsThanOneSumChunk) {
  const auto op = backward_op();
  check_on_host(*op, op->make_problem({{"m", double(kSliceChunk + 3)}, {"n", 5}, {"k", 7}}));
}

}  // namespace
}  // namespace nb::test
