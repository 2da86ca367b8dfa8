// gemm_scale_bn_bwd's variants, in the order a reader should meet them.
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"

namespace nb::gemm_scale_bn_bwd {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> v;
  for (auto make : {make_naive, make_unfused, make_sums_then_cublas, make_both_layouts, make_fused_prologue, make_cudnn}) v.push_back(make());
  return v;
}

}  // namespace nb::gemm_scale_bn_bwd
