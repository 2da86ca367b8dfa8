#pragma once
// Float64 reference programs of the forward GEMM pipelines: nn.Linear by the executor's double GEMM
// (linear_reference), then the normalization that follows it, with per-column or per-group
// statistics by slice_sums and one thread per output. The same formulas, in the same order of
// operations, as baselines/cpu/gemm_pipeline_reference.cpp, whose Eigen references audit them.
// Every pointer is on the executor's side; x, W and b in their storage (bf16 for a bf16 problem),
// every other tensor fp32.
#include <cstdint>

#include "baselines/cpu/operand_amplification.hpp"
#include "harness/stored_value.hpp"

namespace nb::gpu {

// g = x W^T + b: x (m, k), W (n, k), b (n). `rounds_output`: the problem's GEMM rounds h, its
// output, to bf16 (autocast), rather than each product (tf32): which rounding the operand
// amplifications measure (linear::RoundingErrors).
struct LinearOperands {
  stored::Tensor x, w, b;
  std::int64_t m, n, k;
  bool rounds_output = false;
};

// BatchNorm1d in training mode over the m rows of each column: the per-column parameters, the
// running statistics before the step, and the float64 outputs beside y.
struct BatchNormColumns {
  const float* gamma;
  const float* beta;
  const float* running_mean;
  const float* running_var;
  double eps, momentum;
  double* save_mean;
  double* save_invstd;
  double* new_running_mean;
  double* new_running_var;
};

// Each pipeline returns its operand amplifications (baselines/cpu/operand_amplification.hpp).
struct BatchNormPipelineAmplifications {
  double y = 0;
  linear::BatchNormStatisticAmplifications statistics;
};

// y = bn_train((x W^T + b) * s), s per column (n); y is (m, n).
template <class Ex>
BatchNormPipelineAmplifications gemm_scale_bn(Ex& ex, const LinearOperands& lin, const float* scale,
                                              const BatchNormColumns& bn, double* y);

// y = softmax(s * bn_train(x W^T + b)) over each row, s one value; y is (m, n).
template <class Ex>
BatchNormPipelineAmplifications gemm_bn_scale_softmax(Ex& ex, const LinearOperands& lin, const float* scale,
                                                      const BatchNormColumns& bn, double* y);

// GroupNorm of each row of g = x W^T + b over `groups` groups of channels (per-channel gamma,
// beta), its minimum over the row, plus add_bias per channel: y (n, m), y[c][r] = min_r + add_bias[c].
// `condition` is the largest sqrt(1 + (mean * invstd)^2) over the groups where it is finite, at
// least 1 and at most 1e5 (linear::groupnorm_rows' condition).
struct GroupMinimumConditions {
  double condition = 1;
  double operand_amplification = 0;
};
template <class Ex>
GroupMinimumConditions gemm_gn_min_bias(Ex& ex, const LinearOperands& lin, std::int64_t groups, const float* gamma,
                                        const float* beta, const float* add_bias, double eps, double* y);

}  // namespace nb::gpu
