// wgmma_epilogue: fused_epilogue's plan on our Hopper GEMM (TMA, wgmma, tf32): the epilogue adds
// the bias, applies the scale, stores h and takes each column's exact statistics over its 128-row
// tile while the tile is on chip; a tiny kernel merges the M / 128 partials the Chan way and
// commits them, and one more pass over y normalizes (or, L2#84, runs the row softmax).
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_bn {
namespace {

using linear::dev::Welford;

// The partials of the 128-row tiles, then the affine.
std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(linear::wgmma_tiles_m(int(s.m))) * std::size_t(s.n) * sizeof(Welford) + 2 * std::size_t(s.n) * sizeof(float) + 16;
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  linear::require_wgmma(a.op);
  const int tiles = linear::wgmma_tiles_m(a.m);
  Welford* partials = static_cast<Welford*>(ws);
  float* affine = reinterpret_cast<float*>(partials + std::size_t(tiles) * std::size_t(a.n));
  linear::launch_wgmma(a.op, linear::dev::ColumnStatsEpilogue{a.bias, a.column_scale, a.y, partials, a.n}, s);
  linear::launch_commit_columns(partials, tiles, a.bn, nullptr, a.post_scale, affine, a.n, s);
  finish_in_place(a, affine, s);
}

}  // namespace

std::unique_ptr<Variant> make_wgmma_epilogue_variant(BnTail tail) {
  KernelVariantSpec v{"wgmma_epilogue", "fused",
                      "our Hopper GEMM (TMA, wgmma, tf32) whose epilogue stores h = (g + b) * s and per-tile column "
                      "statistics; Chan merge + commit, then one pass: normalize (or row softmax)",
                      [tail](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(tail, p, t, ws, s);
                      }};
  v.supports = linear::wgmma_tf32_support;
  v.workspace_bytes = workspace;
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
