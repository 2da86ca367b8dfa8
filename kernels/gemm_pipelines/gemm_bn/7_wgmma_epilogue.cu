// wgmma_epilogue: fused_epilogue's plan on our Hopper GEMM (TMA, wgmma; tf32, or bf16 operands for
// a bf16 problem), persistent, its epilogue reading the accumulators in registers: it adds the
// bias, applies the scale, stores h (fp32 in y; a bf16 problem's in bf16, autocast's storage, in
// the workspace) and takes each column's exact statistics over its 128-row tile from the fp32
// values; a tiny kernel merges the M / 128 partials the Chan way and commits them, and one more
// pass from h into y normalizes (or, L2#84, runs the row softmax).
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_bn {
namespace {

using gemm::sm90::wgmma_tiles_m;

// The partials and the affine, then for a bf16 problem h in bf16 at a 256-byte boundary.
std::size_t h_offset(int m, int n) { return (column_stats_workspace(wgmma_tiles_m(m), n) + 255) / 256 * 256; }

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  const std::size_t h = p.dtype == DType::bf16 ? std::size_t(s.m) * std::size_t(s.n) * sizeof(__nv_bfloat16) : 0;
  return h_offset(int(s.m), int(s.n)) + h;
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  auto* partials = static_cast<linear::dev::Welford*>(ws);
  if (p.dtype != DType::bf16) {
    linear::require_wgmma(a.op);
    linear::launch_wgmma(a.op, linear::dev::ColumnStatsEpilogue{a.bias, a.column_scale, a.y, partials, a.n}, s);
    finish_from_column_partials(a, ws, wgmma_tiles_m(a.m), s);
    return;
  }
  auto* h = reinterpret_cast<__nv_bfloat16*>(static_cast<char*>(ws) + h_offset(a.m, a.n));
  linear::require_wgmma(a.bf16.op);
  linear::launch_wgmma(a.bf16.op, linear::dev::ColumnStatsEpilogue{a.bf16.bias, a.column_scale, nullptr, partials, a.n},
                       h, s);
  finish_from_column_partials(a, ws, wgmma_tiles_m(a.m), s, h);
}

}  // namespace

std::unique_ptr<Variant> make_wgmma_epilogue_variant(BnTail tail) {
  KernelVariantSpec v{"wgmma_epilogue", "fused",
                      "our persistent Hopper GEMM (TMA, wgmma; tf32, or bf16 operands) whose epilogue, from the "
                      "accumulators, stores h = (g + b) * s (bf16 for a bf16 problem) and per-tile column statistics; "
                      "Chan merge + commit, then one pass: normalize (or row softmax)",
                      [tail](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(tail, p, t, ws, s);
                      }};
  v.supports = linear::wgmma_support;
  v.workspace_bytes = workspace;
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
