// gemm_bn_scale_softmax (KernelBench L2#84): nn.Linear, BatchNorm1d in training mode, a scalar
// scale, softmax over dim 1. The variants live in the family folder above, gemm_bn/, with gemm_scale_bn's.
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/ops.hpp"

namespace nb {

std::unique_ptr<OpSpec> make_gemm_bn_scale_softmax_op() {
  // linear::named (fp32 and tf32 alone) at M <= 3: BatchNorm's statistics of two or three values rounded to bf16 (autocast's h)
  // err by u |h| / |h_1 - h_2|, which no bound that still discriminates covers.
  const auto named = linear::named_with_bf16;
  return gemm_bn::make_op(
      gemm_bn::BnTail::scale_softmax, "gemm_bn_scale_softmax",
      "y = softmax(s * bn_train(x W^T + b), dim=1), s a (1,) parameter; BatchNorm as in gemm_scale_bn "
      "(running stats updated, mean/invstd saved)",
      {named({{"m", 128}, {"n", 512}, {"k", 1024}}, {"kb"}, "KernelBench L2#84, original size"),
       named({{"m", 1024}, {"n", 8192}, {"k", 8192}}, {"kb"}, "KernelBench L2#84, enlarged"),
       named({{"m", 64}, {"n", 96}, {"k", 128}}, {"quick"}, "small aligned"),
       named({{"m", 127}, {"n", 33}, {"k", 1001}}, {"quick"}, "odd M, N, K (no vector loads)"),
       linear::named({{"m", 2}, {"n", 1030}, {"k", 67}}, {"quick"}, "M = 2, rows longer than a CTA"),
       named({{"m", 300}, {"n", 257}, {"k", 264}}, {"quick"},
             "M over one tile, odd N, K a multiple of 8 (not of 32)"),
       linear::named({{"m", 3}, {"n", 8195}, {"k", 20}}, {"quick"}, "rows past 8192: the softmax that re-reads its row")});
}

}  // namespace nb
