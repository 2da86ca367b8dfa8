// wgmma_epilogue: fused_epilogue's plan on our Hopper GEMM (TMA, wgmma; tf32, or bf16 operands for
// a bf16 problem), persistent, its epilogue reading the accumulators in registers: it adds the
// bias, normalizes every (row, group) of the 128 x 256 tile (a row's 256 columns lie in one quad
// of threads: shuffles, no shared memory) and keeps only each row's minimum over the tile's
// channels, so g is never written; a small kernel takes the minimum over the N / 256 tiles and
// writes the (1, N, M, 1) broadcast.
#include <string>

#include "kernels/gemm_pipelines/gemm_gn_min_bias/tile_minimum.cuh"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_gn_min_bias {
namespace {

using gemm::sm90::wgmma_tiles_n;

Support supports(const Problem& p) {
  if (Support hopper = linear::wgmma_support(p); !hopper.ok) return hopper;
  const linear::Shape s = linear::shape_of(p);
  if (const std::string why = linear::wgmma_groupnorm_refusal(int(s.group_size())); !why.empty())
    return Support::no(why);
  return Support::yes();
}

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(wgmma_tiles_n(int(s.n))) * std::size_t(s.m) * sizeof(float);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* partial_min = static_cast<float*>(ws);
  if (p.dtype == DType::bf16) {
    linear::require_wgmma(a.bf16.op);
    linear::dev::GroupNormMinEpilogue epilogue = tile_minimum_epilogue(a, partial_min);
    epilogue.bias = a.bf16.bias;
    linear::launch_wgmma(a.bf16.op, epilogue, s);
  } else {
    linear::require_wgmma(a.op);
    linear::launch_wgmma(a.op, tile_minimum_epilogue(a, partial_min), s);
  }
  finish_from_tile_minima(a, partial_min, wgmma_tiles_n(a.n), s);
}

}  // namespace

std::unique_ptr<Variant> make_wgmma_epilogue_variant() {
  return make_kernel_variant({
      "wgmma_epilogue", "fused",
      "our persistent Hopper GEMM (TMA, wgmma; tf32, or bf16 operands) whose epilogue, from the accumulators, does "
      "bias, GroupNorm and the row min per 128 x 256 tile (g is never written); then min over tiles + broadcast bias",
      launch, supports, workspace});
}

}  // namespace nb::gemm_gn_min_bias
