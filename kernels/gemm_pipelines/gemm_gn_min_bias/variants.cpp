// The gemm_gn_min_bias variants, in the order a reader should meet them.
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"

namespace nb::gemm_gn_min_bias {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> v;
  for (auto spec : {naive_variant(), unfused_variant()}) v.push_back(make_kernel_variant(std::move(spec)));
  v.push_back(make_lt_epilogue());
  for (auto spec : {fused_epilogue_variant(), single_launch_variant()}) v.push_back(make_kernel_variant(std::move(spec)));
  return v;
}

}  // namespace nb::gemm_gn_min_bias
