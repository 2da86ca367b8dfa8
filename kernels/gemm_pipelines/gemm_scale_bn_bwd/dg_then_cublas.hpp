#pragma once
// The variant sums_then_cublas and both_layouts share (dg_then_cublas.cu): one pass for the column
// gradients and dg's affine, one pass writing dg (and dg^T for both_layouts), then cuBLAS.
#include <memory>
#include <string>

#include "harness/variant.hpp"

namespace nb::gemm_scale_bn_bwd {

std::unique_ptr<Variant> dg_then_cublas(bool both_layouts, std::string name, std::string idea);

}  // namespace nb::gemm_scale_bn_bwd
