#pragma once
// The memory-bound passes of the backward, as host launchers on a stream.
//
// One reduction pass reads dy and g once and gives every column what the whole backward needs:
// dbeta, dgamma, db, ds, and the coefficients that make dg an affine map of (dy, g) per column,
//   dg = A_j dy + B_j (g - c_j) + C_j,   c_j = g[0][j]
// (the shift c_j keeps B_j (g - c_j) at the scale of the column's spread, not of its mean).
// The unfused variant's kernels (what autograd launches, one per step) follow.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"

namespace nb::gemm_scale_bn_bwd {

// The per-column coefficients, 4N floats: A, B, C, c.
struct DgCoefficients {
  const float* a;
  const float* b;
  const float* c;
  const float* shift;
  static DgCoefficients at(const float* base, int n) { return {base, base + n, base + 2 * n, base + 3 * n}; }
};

// Workspace of launch_column_gradients: the chunks' partials, then the 4N coefficients.
std::size_t column_gradients_workspace_bytes(int m, int n);
// Writes dbeta, dgamma, db and ds, and the coefficients into the end of `workspace` (returned).
DgCoefficients launch_column_gradients(const Args& a, void* workspace, cudaStream_t s);
// dg = A dy + B (g - c) + C, into an (M, N) matrix.
void launch_write_dg(const Args& a, const DgCoefficients& k, float* dg, cudaStream_t s);
// The same, and its transpose dg^T (N, M) from the same read (32 x 32 tiles through shared memory).
void launch_write_dg_both_layouts(const Args& a, const DgCoefficients& k, float* dg, float* dg_t, cudaStream_t s);

// --- autograd's steps (the unfused variant) ---
// Workspace of launch_column_sum and launch_bn_backward_reduce: partials of two sums.
std::size_t column_sum_workspace_bytes(int m, int n);
// BatchNorm's backward reduce: dbeta = sum dy, dgamma = sum dy * xhat.
void launch_bn_backward_reduce(const Args& a, void* workspace, cudaStream_t s);
// BatchNorm's backward elementwise step: dh = gamma invstd (dy - dbeta / M - xhat dgamma / M).
void launch_bn_backward_elementwise(const Args& a, float* dh, cudaStream_t s);
// out = a * b elementwise, (M, N) (a per-column scale is linear::launch_scale).
void launch_multiply(const float* a, const float* b, float* out, int m, int n, cudaStream_t s);
// out[j] = sum over rows of mat[i][j].
void launch_column_sum(const float* mat, float* out, int m, int n, void* workspace, cudaStream_t s);

}  // namespace nb::gemm_scale_bn_bwd
