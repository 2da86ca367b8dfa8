#pragma once
// gemm_gn_min_bias (KernelBench L2#75): g = x W^T + b; z = GroupNorm(G, N)(g) with per-channel
// affine; m = min over dim 1 (keepdim), (M, 1); out = m + bias with bias (1, N, 1, 1), which
// PyTorch broadcasts to (1, N, M, 1): out[0][c][r][0] = m[r] + bias[c], stored as (N, M).
#include "harness/op_spec.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"

namespace nb::gemm_gn_min_bias {

enum Tensor : int { kX, kWeight, kBias, kGamma, kBeta, kAddBias, kY, kTensorCount };

struct Args {
  gemm::Operands op;
  const float* bias;
  const float* gamma;
  const float* beta;
  const float* add_bias;
  float* out;  // (N, M)
  int m, n, groups;
  float eps;
  bool tf32;
  linear::Bf16Linear bf16{};  // a bf16 problem's x, W and b (op and bias are null then)
};

Args args_of(const Problem& p, const DeviceTensors& t);


std::vector<std::unique_ptr<Variant>> make_variants();  // variants.cpp

}  // namespace nb::gemm_gn_min_bias
