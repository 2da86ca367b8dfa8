#pragma once
// The softmax variants, one factory per file, listed in variants.cpp in reading order.
#include "harness/variant.hpp"

namespace nb::softmax {

KernelVariantSpec naive_variant();     // 1_naive.cu
KernelVariantSpec smem_variant();      // 2_smem.cu
KernelVariantSpec warp_variant();      // 3_warp.cu
KernelVariantSpec online_variant();    // 4_online.cu
KernelVariantSpec onchip_variant();    // 5_onchip.cu
KernelVariantSpec dispatch_variant();  // 6_dispatch.cu

}  // namespace nb::softmax
