#pragma once
// The min_dim1 variants, one factory per file, listed in variants.cpp in reading order.
#include "harness/variant.hpp"

namespace nb::min_dim1 {

KernelVariantSpec naive_variant();  // 1_naive.cu
KernelVariantSpec warp_variant();   // 2_warp.cu
KernelVariantSpec vec_variant();    // 3_vec.cu

}  // namespace nb::min_dim1
