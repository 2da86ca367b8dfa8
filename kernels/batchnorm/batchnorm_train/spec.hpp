#pragma once
// batchnorm_train: BatchNorm training forward (PyTorch semantics). Tensors by index, the kernel
// argument block built from them, and the variant table (variants.cpp).
#include "harness/op_spec.hpp"
#include "kernels/batchnorm/args.hpp"
#include "kernels/batchnorm/shape.hpp"

namespace nb::batchnorm_train {

enum Tensor : int { kX, kGamma, kBeta, kRunningMean, kRunningVar, kY, kSaveMean, kSaveInvstd, kTensorCount };

bn::FwdArgs fwd_args(const Problem& p, const DeviceTensors& t);


std::vector<std::unique_ptr<Variant>> make_variants();  // variants.cpp

}  // namespace nb::batchnorm_train
