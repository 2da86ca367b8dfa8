// single_launch: for rows of at most 256 channels, one GEMM launch with 16 x 256 tiles that hold
// whole rows: the epilogue normalizes each group, takes the row minimum and writes the
// (1, N, M, 1) broadcast for its 16 rows directly. Nothing else is launched.
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/mainloop_choice.cuh"

namespace nb::gemm_gn_min_bias {
namespace {

Support supports(const Problem& p) {
  if (Support operands = linear::fp32_operands_support(p); !operands.ok) return operands;
  const linear::Shape s = linear::shape_of(p);
  if (s.n > gemm::SimtRowStrip::kBN)
    return Support::no("one launch needs whole rows in one tile: N = " + std::to_string(s.n) + " > " +
                       std::to_string(gemm::SimtRowStrip::kBN));
  return Support::yes();
}

template <class Mainloop>
void run(const Args& a, cudaStream_t s) {
  const linear::dev::GroupNormMinEpilogue epilogue{a.bias, a.gamma, a.beta, a.add_bias, nullptr,
                                                   a.out,  a.m,     a.n / a.groups, a.eps};
  gemm::launch_gemm<Mainloop>(a.op, epilogue, s);
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t s) {
  const Args a = args_of(p, t);
  if (a.tf32)
    run<linear::Tf32RowStrip>(a, s);
  else
    run<gemm::SimtRowStrip>(a, s);
}

}  // namespace

std::unique_ptr<Variant> make_single_launch_variant() {
  return make_kernel_variant({
      "single_launch", "fused",
      "N <= 256: one GEMM launch of 16 x 256 tiles holding whole rows: bias, GroupNorm, row min and the "
      "broadcast bias write in the epilogue",
      launch, supports});
}

}  // namespace nb::gemm_gn_min_bias
