// wgmma_whole_columns: BatchNorm whole inside our Hopper GEMM's epilogue where the batch is at most
// 16 tiles of 128 rows (M <= 2048): a team of resident CTAs holds every row of one 256-column strip
// in the same turn; each writes its columns' moments, meets its team at the strip's counter,
// merges the team's moments, commits the statistics and writes y from the accumulators. No h, no
// statistics kernel, no normalize pass (L2#84 runs its row softmax over y after the GEMM).
#include <string>

#include "harness/cuda_check.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/wgmma_support.hpp"

namespace nb::gemm_bn {
namespace {

using gemm::sm90::kMaxTeamTilesM;
using gemm::sm90::kWgmmaTileM;
using gemm::sm90::kWgmmaTileN;
using gemm::sm90::wgmma_tiles_m;
using gemm::sm90::wgmma_tiles_n;

Support supports(const Problem& p) {
  if (Support hopper = linear::wgmma_support(p); !hopper.ok) return hopper;
  const linear::Shape s = linear::shape_of(p);
  if (wgmma_tiles_m(int(s.m)) > kMaxTeamTilesM)
    return Support::no("M = " + std::to_string(s.m) + ": a column's statistics span more than the " +
                       std::to_string(kMaxTeamTilesM) + " tiles of " + std::to_string(kWgmmaTileM) +
                       " rows a team of CTAs holds in one turn (M <= " +
                       std::to_string(kMaxTeamTilesM * kWgmmaTileM) + ")");
  return Support::yes();
}

// The moments of every (strip, tile, column), then the strips' arrival counts.
std::size_t moments_bytes(int m, int n) {
  return std::size_t(wgmma_tiles_n(n)) * std::size_t(wgmma_tiles_m(m)) * kWgmmaTileN * sizeof(float2);
}
std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return moments_bytes(int(s.m), int(s.n)) + std::size_t(wgmma_tiles_n(int(s.n))) * sizeof(unsigned);
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  auto* moments = static_cast<float2*>(ws);
  auto* arrivals = reinterpret_cast<unsigned*>(static_cast<char*>(ws) + moments_bytes(a.m, a.n));
  NB_CUDA_CHECK(cudaMemsetAsync(arrivals, 0, std::size_t(wgmma_tiles_n(a.n)) * sizeof(unsigned), s));
  if (p.dtype == DType::bf16) {
    linear::require_wgmma(a.bf16.op);
    linear::launch_wgmma_teams(a.bf16.op,
                               linear::dev::TeamBnEpilogue{a.bf16.bias, a.column_scale, a.post_scale, a.bn, a.y,
                                                           moments, arrivals, a.m, a.n},
                               s);
  } else {
    linear::require_wgmma(a.op);
    linear::launch_wgmma_teams(
        a.op, linear::dev::TeamBnEpilogue{a.bias, a.column_scale, a.post_scale, a.bn, a.y, moments, arrivals, a.m, a.n},
        s);
  }
  if (tail == BnTail::scale_softmax) linear::launch_softmax_rows<float>(a.y, a.y, nullptr, a.m, a.n, s);
}

}  // namespace

std::unique_ptr<Variant> make_wgmma_whole_columns_variant(BnTail tail) {
  KernelVariantSpec v{"wgmma_whole_columns", "fused",
                      "M <= 2048: our persistent Hopper GEMM in teams of resident CTAs holding every row of a column "
                      "strip; the epilogue merges the team's column moments, commits the statistics and writes y from "
                      "the accumulators (no h, no pass after; L2#84: + row softmax)",
                      [tail](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(tail, p, t, ws, s);
                      }};
  v.supports = supports;
  v.workspace_bytes = workspace;
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
