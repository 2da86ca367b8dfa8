// fused_epilogue: our own GEMM whose epilogue adds the bias, applies the scale, stores h and
// takes each column's exact statistics over its tile's rows while the tile is on chip; a tiny
// kernel merges the M / BM partials the Chan way and commits them, and one more pass over y
// normalizes (or, L2#84, runs the row softmax). SIMT fp32 or tf32 tensor cores by precision.
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/mainloop_choice.cuh"

namespace nb::gemm_bn {
namespace {

// Partials for the smaller tiles (the most tiles_m any mainloop gives), then the affine.
std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return column_stats_workspace(gemm::tiles_m<gemm::SimtSquare>(int(s.m)), int(s.n));
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  linear::with_mainloop(a.tf32, a.m, a.n, [&](auto tag) {
    using Mainloop = typename decltype(tag)::type;
    auto* partials = static_cast<linear::dev::Welford*>(ws);
    gemm::launch_gemm<Mainloop>(a.op, linear::dev::ColumnStatsEpilogue{a.bias, a.column_scale, a.y, partials, a.n}, s);
    finish_from_column_partials(a, ws, gemm::tiles_m<Mainloop>(a.m), s);
  });
}

}  // namespace

std::unique_ptr<Variant> make_fused_epilogue_variant(BnTail tail) {
  KernelVariantSpec v{"fused_epilogue", "fused",
                      "own GEMM (SIMT fp32 / mma.sync tf32) whose epilogue stores h = (g + b) * s and per-tile column "
                      "statistics; Chan merge + commit, then one pass: normalize (or row softmax)",
                      [tail](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(tail, p, t, ws, s);
                      }};
  v.workspace_bytes = workspace;
  v.supports = linear::fp32_operands_support;
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
