// wgmma_epilogue: fused_epilogue's plan on our Hopper GEMM (TMA, wgmma, tf32): the epilogue adds
// the bias, normalizes every (row, group) from the 128 x 256 tile while it is on chip and keeps
// only each row's minimum over the tile's channels, so g is never written; a small kernel takes
// the minimum over the N / 256 tiles and writes the (1, N, M, 1) broadcast.
#include <string>

#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_gn_min_bias {
namespace {

// The Hopper GEMM's, and its 256-column tiles must hold whole groups unless one tile holds the row.
Support supports(const Problem& p) {
  if (Support hopper = linear::wgmma_tf32_support(p); !hopper.ok) return hopper;
  const linear::Shape s = linear::shape_of(p);
  const std::int64_t size = s.group_size();
  if (gemm::sm90::kWgmmaTileN % size != 0 && s.n > gemm::sm90::kWgmmaTileN)
    return Support::no("a group of " + std::to_string(size) + " channels would straddle tiles of " +
                       std::to_string(gemm::sm90::kWgmmaTileN) + " columns (the epilogue needs whole groups)");
  return Support::yes();
}

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(linear::wgmma_tiles_n(int(s.n))) * std::size_t(s.m) * sizeof(float);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  linear::require_wgmma(a.op);
  float* partial_min = static_cast<float*>(ws);
  const linear::dev::GroupNormMinEpilogue epilogue{a.bias, a.gamma, a.beta,         a.add_bias, partial_min,
                                                   nullptr, a.m,    a.n / a.groups, a.eps};
  linear::launch_wgmma(a.op, epilogue, s);
  linear::launch_min_broadcast(partial_min, linear::wgmma_tiles_n(a.n), a.add_bias, a.out, a.m, a.n, s);
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
