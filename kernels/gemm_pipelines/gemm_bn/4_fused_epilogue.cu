// fused_epilogue: our own GEMM whose epilogue adds the bias, applies the scale, stores h and
// takes each column's exact statistics over its tile's rows while the tile is on chip; a tiny
// kernel merges the M / BM partials the Chan way and commits them, and one more pass over y
// normalizes (or, L2#84, runs the row softmax). SIMT fp32 or tf32 tensor cores by precision.
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/mainloop_choice.cuh"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_bn {
namespace {

using linear::dev::Welford;

// Partials for the smaller tiles (the most tiles_m any mainloop gives), then the affine.
std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  const std::size_t tiles = std::size_t(gemm::tiles_m<gemm::SimtSquare>(int(s.m)));
  return tiles * std::size_t(s.n) * sizeof(Welford) + 2 * std::size_t(s.n) * sizeof(float) + 16;
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  linear::with_mainloop(a.tf32, a.m, a.n, [&](auto tag) {
    using Mainloop = typename decltype(tag)::type;
    const int tiles = gemm::tiles_m<Mainloop>(a.m);
    Welford* partials = static_cast<Welford*>(ws);
    float* affine = reinterpret_cast<float*>(partials + std::size_t(tiles) * std::size_t(a.n));
    gemm::launch_gemm<Mainloop>(a.op, linear::dev::ColumnStatsEpilogue{a.bias, a.column_scale, a.y, partials, a.n}, s);
    linear::launch_commit_columns(partials, tiles, a.bn, nullptr, a.post_scale, affine, a.n, s);
    finish_in_place(a, affine, s);
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
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
