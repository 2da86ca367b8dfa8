#pragma once
// gemm_scale_bn_bwd: the training-step backward of gemm_scale_bn (g = x W^T + b, h = g * s,
// y = bn_train(h)) as autograd computes it, from dy and what the forward saved (x, W, s, gamma,
// g, the batch mean and invstd of h). Per column j over the M rows, with u = g - mean_j / s_j
// (g centred by the saved statistics, so xhat = s_j * invstd_j * u):
//   dbeta_j  = sum dy                     dgamma_j = s_j invstd_j sum dy u
//   dh       = gamma_j invstd_j (dy - dbeta_j / M - xhat dgamma_j / M)
//   dg = dh * s_j   ds_j = sum dh * g   db_j = sum dg   dx = dg W   dW = dg^T x
// dg is affine in (dy, g) per column: dg = A_j dy + B_j g + C_j (ColumnCoefficients), which is
// what lets the GEMMs compute it in their tile loaders instead of reading it back.
#include <cuda_bf16.h>

#include <memory>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb::gemm_scale_bn_bwd {

// The declared order of the op's tensors (shapes in the comments).
enum Tensor : int {
  kX,          // (M, K)  input
  kWeight,     // (N, K)  input
  kScale,      // (N)     input: s
  kGamma,      // (N)     input
  kG,          // (M, N)  input: the forward's linear output x W^T + b (saved for ds)
  kSaveMean,   // (N)     input: the batch mean of h = g * s
  kSaveInvstd, // (N)     input: 1 / sqrt(biased var of h + eps)
  kDy,         // (M, N)  input
  kDx,         // (M, K)  output
  kDweight,    // (N, K)  output
  kDbias,      // (N)     output
  kDscale,     // (N)     output
  kDgamma,     // (N)     output
  kDbeta,      // (N)     output
  kTensorCount
};

// A bf16 problem's tensors in autocast's storage: x, W and the saved g in bf16, and nn.Linear's
// gradients dx, dW, db in bf16 (docs/notes/bf16-pipelines.md). Null for fp32 and tf32 problems.
struct Bf16Tensors {
  const __nv_bfloat16 *x = nullptr, *weight = nullptr, *g = nullptr;
  __nv_bfloat16 *dx = nullptr, *dweight = nullptr, *dbias = nullptr;
};

// Pointers and sizes every variant starts from. For a bf16 problem x, weight, g, dx, dweight and
// dbias are null and `bf16` holds them; dy, s, gamma, the saved statistics and ds, dgamma, dbeta
// are fp32 in every precision.
struct Args {
  const float *x, *weight, *scale, *gamma, *g, *save_mean, *save_invstd, *dy;
  float *dx, *dweight, *dbias, *dscale, *dgamma, *dbeta;
  int m, n, k;
  bool tf32;
  Bf16Tensors bf16;
};

Args args_of(const Problem& p, const DeviceTensors& t);

std::vector<std::unique_ptr<Variant>> make_variants();  // variants.cpp

}  // namespace nb::gemm_scale_bn_bwd
