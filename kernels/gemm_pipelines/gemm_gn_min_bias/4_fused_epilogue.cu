// fused_epilogue: our own GEMM whose epilogue adds the bias, normalizes every (row, group) from
// the tile while it is on chip and keeps only each row's minimum over the tile's channels, so g
// is never written; a small kernel takes the minimum over the N / BN tiles and writes the
// (1, N, M, 1) broadcast. SIMT fp32 or tf32 tensor cores by precision.
#include "kernels/gemm_pipelines/gemm_gn_min_bias/tile_minimum.cuh"
#include "kernels/gemm_pipelines/mainloop_choice.cuh"

namespace nb::gemm_gn_min_bias {
namespace {

// Both tile widths in use (128 and 64) must hold whole groups, unless one tile holds the row: the
// 64-column tiles decide.
Support supports(const Problem& p) {
  if (Support operands = linear::fp32_operands_support(p); !operands.ok) return operands;
  return whole_groups_per_tile(p, gemm::SimtSquare::kBN);
}

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(gemm::tiles_n<gemm::SimtSquare>(int(s.n))) * std::size_t(s.m) * sizeof(float);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* partial_min = static_cast<float*>(ws);
  linear::with_mainloop(a.tf32, a.m, a.n, [&](auto tag) {
    using Mainloop = typename decltype(tag)::type;
    gemm::launch_gemm<Mainloop>(a.op, tile_minimum_epilogue(a, partial_min), s);
    finish_from_tile_minima(a, partial_min, gemm::tiles_n<Mainloop>(a.n), s);
  });
}

}  // namespace

std::unique_ptr<Variant> make_fused_epilogue_variant() {
  return make_kernel_variant({
      "fused_epilogue", "fused",
      "own GEMM (SIMT fp32 / mma.sync tf32) whose epilogue does bias, GroupNorm and the row min per tile (g is "
      "never written); then min over tiles + broadcast bias",
      launch, supports, workspace});
}

}  // namespace nb::gemm_gn_min_bias
