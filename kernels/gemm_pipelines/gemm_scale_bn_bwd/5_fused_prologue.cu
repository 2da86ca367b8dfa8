// fused_prologue: one pass over dy and g gives every column gradient and dg's per-column affine;
// then our GEMM template computes dx = dg W and dW = dg^T x with dg made in the tile loaders (a
// prologue policy) from dy and g: dg is neither written nor read back. SIMT fp32 or mma.sync
// tf32 mainloops, register-staged, by precision.
#include "kernels/gemm/store_epilogue.cuh"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/mainloop_choice.cuh"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/dg_source.cuh"

namespace nb::gemm_scale_bn_bwd {
namespace {

using gemm::KMajor;
using gemm::MNMajor;
using gemm::PlainSource;

// The register-staged tf32 path takes the 8-warp tiles (the 4-warp Tf32Large64 would hold 128
// accumulators and 64 staged floats per thread).
template <class F>
void with_backward_mainloop(bool tf32, int m, int n, F f) {
  if (tf32)
    linear::with_tiles_for<gemm::Tf32Large, gemm::Tf32Small>(m, n, f);
  else
    linear::with_tiles_for<gemm::SimtWideK16, gemm::SimtSquare>(m, n, f);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  const DgCoefficients k = launch_column_gradients(a, ws, s);
  const dev::DgSource dg{a.dy, a.g, k, a.m, a.n};
  // dx (M, K) = dg (M, N) W (N, K): A is dg, K-major over N; B's rows are W's columns.
  with_backward_mainloop(a.tf32, a.m, a.k, [&](auto tag) {
    using Mainloop = typename decltype(tag)::type;
    gemm::launch_operand_gemm<Mainloop>(KMajor<dev::DgSource>{dg}, MNMajor<PlainSource>{{a.weight, a.n, a.k}}, a.m,
                                        a.k, a.n, gemm::StoreEpilogue{a.dx, a.k, nullptr}, s);
  });
  // dW (N, K) = dg^T (N, M) x (M, K): both operands M-major in storage.
  with_backward_mainloop(a.tf32, a.n, a.k, [&](auto tag) {
    using Mainloop = typename decltype(tag)::type;
    gemm::launch_operand_gemm<Mainloop>(MNMajor<dev::DgSource>{dg}, MNMajor<PlainSource>{{a.x, a.m, a.k}}, a.n, a.k,
                                        a.m, gemm::StoreEpilogue{a.dweight, a.k, nullptr}, s);
  });
}

}  // namespace

std::unique_ptr<Variant> make_fused_prologue_variant() {
  KernelVariantSpec v{"fused_prologue", "fused",
                      "one pass over dy and g for the column gradients and dg's affine, then our GEMM (SIMT fp32 / "
                      "mma.sync tf32) twice with dg computed in the tile loaders: dg never written",
                      launch};
  v.supports = linear::fp32_operands_support;
  v.workspace_bytes = [](const Problem& p) {
    const linear::Shape s = linear::shape_of(p);
    return column_gradients_workspace_bytes(int(s.m), int(s.n));
  };
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_scale_bn_bwd
