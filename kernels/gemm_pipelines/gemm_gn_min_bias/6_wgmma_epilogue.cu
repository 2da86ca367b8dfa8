// wgmma_epilogue: fused_epilogue's plan on our Hopper GEMM (TMA, wgmma, tf32): the epilogue adds
// the bias, normalizes every (row, group) from the 128 x 256 tile while it is on chip and keeps
// only each row's minimum over the tile's channels, so g is never written; a small kernel takes
// the minimum over the N / 256 tiles and writes the (1, N, M, 1) broadcast.
#include "kernels/gemm_pipelines/gemm_gn_min_bias/tile_minimum.cuh"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_gn_min_bias {
namespace {

using gemm::sm90::wgmma_tiles_n;

Support supports(const Problem& p) {
  if (Support hopper = linear::wgmma_tf32_support(p); !hopper.ok) return hopper;
  return whole_groups_per_tile(p, gemm::sm90::kWgmmaTileN);
}

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(wgmma_tiles_n(int(s.n))) * std::size_t(s.m) * sizeof(float);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  linear::require_wgmma(a.op);
  float* partial_min = static_cast<float*>(ws);
  linear::launch_wgmma(a.op, tile_minimum_epilogue(a, partial_min), s);
  finish_from_tile_minima(a, partial_min, wgmma_tiles_n(a.n), s);
}

}  // namespace

std::unique_ptr<Variant> make_wgmma_epilogue_variant() {
  return make_kernel_variant({
      "wgmma_epilogue", "fused",
      "our Hopper GEMM (TMA, wgmma, tf32) whose epilogue does bias, GroupNorm and the row min per 128 x 256 tile (g is "
      "never written); then min over tiles + broadcast bias",
      launch, supports, workspace});
}

}  // namespace nb::gemm_gn_min_bias
