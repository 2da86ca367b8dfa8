// wgmma_epilogue: fused_epilogue's plan on our Hopper GEMM (TMA, wgmma; tf32, or bf16 operands for
// a bf16 problem), persistent, its epilogue reading the accumulators in registers: it adds the
// bias, applies the scale, stores h (fp32) and takes each column's exact statistics over its
// 128-row tile while the next tile's operands load; a tiny kernel merges the M / 128 partials the
// Chan way and commits them, and one more pass over y normalizes (or, L2#84, runs the row softmax).
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_bn {
namespace {

using gemm::sm90::wgmma_tiles_m;

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return column_stats_workspace(wgmma_tiles_m(int(s.m)), int(s.n));
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  auto* partials = static_cast<linear::dev::Welford*>(ws);
  if (p.dtype == DType::bf16) {
    linear::require_wgmma(a.bf16.op);
    linear::launch_wgmma(a.bf16.op, linear::dev::ColumnStatsEpilogue{a.bf16.bias, a.column_scale, a.y, partials, a.n},
                         s);
  } else {
    linear::require_wgmma(a.op);
    linear::launch_wgmma(a.op, linear::dev::ColumnStatsEpilogue{a.bias, a.column_scale, a.y, partials, a.n}, s);
  }
  finish_from_column_partials(a, ws, wgmma_tiles_m(a.m), s);
}

}  // namespace

std::unique_ptr<Variant> make_wgmma_epilogue_variant(BnTail tail) {
  KernelVariantSpec v{"wgmma_epilogue", "fused",
                      "our persistent Hopper GEMM (TMA, wgmma; tf32, or bf16 operands) whose epilogue, from the "
                      "accumulators, stores h = (g + b) * s and per-tile column statistics; Chan merge + commit, then "
                      "one pass: normalize (or row softmax)",
                      [tail](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(tail, p, t, ws, s);
                      }};
  v.supports = linear::wgmma_support;
  v.workspace_bytes = workspace;
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
