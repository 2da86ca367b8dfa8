// The BatchNorm pipelines' variants, in the order a reader should meet them (both ops list the
// same table, each variant bound to the op's tail).
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"

namespace nb::gemm_bn {

std::vector<std::unique_ptr<Variant>> make_variants(BnTail tail) {
  std::vector<std::unique_ptr<Variant>> v;
  for (auto make : {make_naive, make_unfused, make_lt_epilogue, make_fused_epilogue, make_single_launch, make_cudnn})
    v.push_back(make(tail));
  return v;
}

}  // namespace nb::gemm_bn
