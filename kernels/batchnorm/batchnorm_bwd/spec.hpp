#pragma once
// batchnorm_bwd: BatchNorm training backward from the saved mean/invstd (PyTorch semantics).
// Tensors by index, the kernel argument block, and the variant table (variants.cpp).
#include "harness/op_spec.hpp"
#include "kernels/batchnorm/args.hpp"
#include "kernels/batchnorm/shape.hpp"

namespace nb::batchnorm_bwd {

enum Tensor : int { kX, kDy, kGamma, kSaveMean, kSaveInvstd, kDx, kDgamma, kDbeta, kTensorCount };

bn::BwdArgs bwd_args(const Problem& p, const DeviceTensors& t);


std::vector<std::unique_ptr<Variant>> make_variants();  // variants.cpp

}  // namespace nb::batchnorm_bwd
