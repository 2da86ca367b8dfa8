// naive: one thread per output element for the GEMM (fp32 FMA in both precisions), then one
// thread per column for the BatchNorm and one per row for the softmax.
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm/naive_gemm.cuh"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_bn {

std::unique_ptr<Variant> make_naive_variant(BnTail tail) {
  return make_kernel_variant(
      {"naive", "naive",
       "one thread per output for x W^T + b (fp32 FMA), one per column for BatchNorm, one per row for softmax",
       [tail](const Problem& p, const DeviceTensors& t, void*, cudaStream_t s) {
         const Args a = args_of(tail, p, t);
         gemm::launch_naive_gemm(a.op, a.bias, a.y, s);
         linear::launch_naive_bn_columns(a.y, a.column_scale, a.bn, a.m, a.n, s);
         if (tail == BnTail::scale_softmax) linear::launch_naive_scale_softmax_rows(a.y, a.post_scale, a.m, a.n, s);
       }});
}

}  // namespace nb::gemm_bn
