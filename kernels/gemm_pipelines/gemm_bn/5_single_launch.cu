// single_launch: for the launch-bound small batches (M <= 128), one GEMM launch with tall tiles
// that hold every row of their 32 columns, so each CTA computes its columns' statistics, commits
// them and writes y from registers and shared memory; L2#84 adds a grid barrier (a cooperative
// launch) and a warp per row for the softmax. Nothing else is launched.
#include "harness/cuda_check.hpp"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/cooperative_gemm.cuh"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/mainloop_choice.cuh"

namespace nb::gemm_bn {
namespace {

// Zero at module load; every barrier leaves `arrived` at zero again.
__device__ linear::dev::GridBarrierState barrier_state;

Support supports(const Problem& p) {
  if (Support operands = linear::fp32_operands_support(p); !operands.ok) return operands;
  const linear::Shape s = linear::shape_of(p);
  if (s.m > gemm::SimtColumnStrip::kBM)
    return Support::no("one launch needs every row of a column in one tile: M = " + std::to_string(s.m) +
                       " > " + std::to_string(gemm::SimtColumnStrip::kBM));
  return Support::yes();
}

template <class Mainloop>
void run(const Args& a, cudaStream_t s) {
  const linear::dev::WholeColumnBnEpilogue bn{a.bias, a.column_scale, a.bn, a.post_scale, a.y, a.n};
  if (a.tail == BnTail::normalize) {
    gemm::launch_gemm<Mainloop>(a.op, bn, s);
    return;
  }
  static linear::dev::GridBarrierState* const barrier = [] {
    linear::dev::GridBarrierState* address = nullptr;
    NB_CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&address), barrier_state));
    return address;
  }();
  linear::launch_gemm_cooperative<Mainloop>(a.op, linear::dev::WholeColumnBnSoftmaxEpilogue{bn, barrier, a.m}, s);
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  if (a.tf32)
    run<linear::Tf32ColumnStrip>(a, s);
  else
    run<gemm::SimtColumnStrip>(a, s);
}

}  // namespace

std::unique_ptr<Variant> make_single_launch_variant(BnTail tail) {
  KernelVariantSpec v{"single_launch", "fused",
                      "M <= 128: one GEMM launch of 128 x 32 tiles holding whole columns: bias, scale, statistics, "
                      "commit and y in the epilogue (+ grid barrier and row softmax for L2#84)",
                      [tail](const Problem& p, const DeviceTensors& t, void*, cudaStream_t s) { launch(tail, p, t, s); }};
  v.supports = supports;
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
