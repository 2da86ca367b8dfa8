// wgmma_cluster: BatchNorm whole inside our Hopper GEMM's epilogue where the batch fits one
// cluster (M <= 1024, 8 tiles of 128 rows): the CTAs of a cluster hold every row of one 256-column
// strip, exchange their column moments through distributed shared memory, commit the statistics
// and write y from the accumulators. No h, no statistics kernel, no normalize pass (L2#84 runs its
// row softmax over y after the GEMM).
#include <string>

#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_bn {
namespace {

using gemm::sm90::kMaxClusterTilesM;
using gemm::sm90::kWgmmaTileM;

Support supports(const Problem& p) {
  if (Support hopper = linear::wgmma_support(p); !hopper.ok) return hopper;
  const linear::Shape s = linear::shape_of(p);
  if (gemm::sm90::wgmma_tiles_m(int(s.m)) > kMaxClusterTilesM)
    return Support::no("M = " + std::to_string(s.m) + ": a column's statistics span more than the " +
                       std::to_string(kMaxClusterTilesM) + " tiles of " + std::to_string(kWgmmaTileM) +
                       " rows one cluster holds (M <= " + std::to_string(kMaxClusterTilesM * kWgmmaTileM) + ")");
  return Support::yes();
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  if (p.dtype == DType::bf16) {
    linear::require_wgmma(a.bf16.op);
    linear::launch_wgmma_clusters(
        a.bf16.op, linear::dev::ClusterBnEpilogue{a.bf16.bias, a.column_scale, a.post_scale, a.bn, a.y, a.m, a.n}, s);
  } else {
    linear::require_wgmma(a.op);
    linear::launch_wgmma_clusters(
        a.op, linear::dev::ClusterBnEpilogue{a.bias, a.column_scale, a.post_scale, a.bn, a.y, a.m, a.n}, s);
  }
  if (tail == BnTail::scale_softmax) linear::launch_softmax_rows<float>(a.y, a.y, nullptr, a.m, a.n, s);
}

}  // namespace

std::unique_ptr<Variant> make_wgmma_cluster_variant(BnTail tail) {
  KernelVariantSpec v{"wgmma_cluster", "fused",
                      "M <= 1024: our persistent Hopper GEMM in clusters holding every row of a column strip; the "
                      "epilogue exchanges column moments through distributed shared memory, commits the statistics "
                      "and writes y from the accumulators (no h, no pass after; L2#84: + row softmax)",
                      [tail](const Problem& p, const DeviceTensors& t, void*, cudaStream_t s) { launch(tail, p, t, s); }};
  v.supports = supports;
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
