// gemm_scale_bn (KernelBench L2#33, L2#39): nn.Linear, a per-column scale, BatchNorm1d in
// training mode. The variants live in the family folder above, gemm_bn/, written once for both BatchNorm pipelines.
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/ops.hpp"

namespace nb {

std::unique_ptr<OpSpec> make_gemm_scale_bn_op() {
  // linear::named (fp32 and tf32 alone) at M <= 3: BatchNorm's statistics of two or three values rounded to bf16 (autocast's h)
  // err by u |h| / |h_1 - h_2|, which no bound that still discriminates covers.
  const auto named = linear::named_with_bf16;
  return gemm_bn::make_op(
      gemm_bn::BnTail::normalize, "gemm_scale_bn",
      "y = bn_train((x W^T + b) * s): batch statistics per column over M (biased var), running stats "
      "updated with momentum and the unbiased var; saved mean/invstd",
      {named({{"m", 128}, {"n", 512}, {"k", 1024}}, {"kb"}, "KernelBench L2#33, original size"),
       named({{"m", 1024}, {"n", 8192}, {"k", 8192}}, {"kb"}, "KernelBench L2#33, enlarged"),
       named({{"m", 16384}, {"n", 4096}, {"k", 4096}}, {"kb"}, "KernelBench L2#39"),
       linear::bf16_named({{"m", 8192}, {"n", 4096}, {"k", 4096}}, {"kb"}, "transformer-sized: 8192 tokens, hidden 4096"),
       named({{"m", 64}, {"n", 96}, {"k", 128}}, {"quick"}, "small aligned"),
       named({{"m", 127}, {"n", 33}, {"k", 1001}}, {"quick"}, "odd M, N, K (no vector loads)"),
       linear::named({{"m", 2}, {"n", 130}, {"k", 67}}, {"quick"}, "M = 2: the smallest batch BatchNorm accepts"),
       named({{"m", 300}, {"n", 257}, {"k", 264}}, {"quick"},
             "M over one tile, odd N, K a multiple of 8 (not of 32)"),
       // fp32 and tf32 alone: autocast's h rounded to bf16 takes 0.84 of the bf16 bound at 1000 x 4100 x 24
       // (uniform01), past the margin bf16_pipeline_tolerance_test asks of every quick bf16 problem.
       linear::named({{"m", 1100}, {"n", 3600}, {"k", 64}}, {"quick"},
                     "9 row tiles, the last short, and 15 column strips: more than the 14 teams of 9 CTAs that "
                     "wgmma_whole_columns runs on 132 SMs, so a team walks two")});
}

}  // namespace nb
