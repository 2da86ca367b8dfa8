#pragma once
// batchnorm_train: BatchNorm training forward (PyTorch semantics). Tensors by index, the kernel
// argument block built from them, and the variant factories (one per numbered file).
#include "harness/op_spec.hpp"
#include "kernels/batchnorm/args.hpp"
#include "kernels/batchnorm/shape.hpp"

namespace nb::batchnorm_train {

enum Tensor : int { kX, kGamma, kBeta, kRunningMean, kRunningVar, kY, kSaveMean, kSaveInvstd, kTensorCount };

bn::FwdArgs fwd_args(const Problem& p, const DeviceTensors& t);

KernelVariantSpec naive_variant();          // 1_naive.cu
KernelVariantSpec smem_variant();           // 2_smem.cu
KernelVariantSpec warp_variant();           // 3_warp.cu
KernelVariantSpec welford_variant();        // 4_welford.cu
KernelVariantSpec split_variant();          // 5_split.cu
KernelVariantSpec onchip_groups_variant();  // 6_onchip_groups.cu
KernelVariantSpec split_tail_variant();     // 7_split_tail.cu

std::vector<std::unique_ptr<Variant>> make_variants();  // variants.cpp

}  // namespace nb::batchnorm_train
