#pragma once
// The memory-bound passes of the backward, as host launchers on a stream.
//
// One reduction pass reads dy and g once and gives every column what the whole backward needs:
// dbeta, dgamma, db, ds, and the coefficients that make dg an affine map of (dy, g) per column,
//   dg = A_j dy + B_j (g - c_j) + C_j,   c_j = g[0][j]
// (the shift c_j keeps B_j (g - c_j) at the scale of the column's spread, not of its mean).
// The unfused variant's kernels (what autograd launches, one per step) follow. Every pass reads
// g, and writes dg and db, in the problem's linear storage (linear_storage.cuh: fp32, or bf16 for
// a bf16 problem, as autocast keeps them); dy, dh and the column sums are fp32.
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
// dg = A dy + B (g - c) + C, into an (M, N) matrix in the linear storage.
void launch_write_dg(const Args& a, const DgCoefficients& k, void* dg, cudaStream_t s);
// The same, and its transpose dg^T (N, M) from the same read (32 x 32 tiles through shared memory).
void launch_write_dg_both_layouts(const Args& a, const DgCoefficients& k, void* dg, void* dg_t, cudaStream_t s);

// --- autograd's steps (the unfused variant) ---
// Workspace of launch_bn_backward_reduce, launch_dscale_sum and launch_dbias_sum: partials of two sums.
std::size_t column_sum_workspace_bytes(int m, int n);
// BatchNorm's backward reduce: dbeta = sum dy, dgamma = sum dy * xhat.
void launch_bn_backward_reduce(const Args& a, void* workspace, cudaStream_t s);
// BatchNorm's backward elementwise step: dh = gamma invstd (dy - dbeta / M - xhat dgamma / M).
void launch_bn_backward_elementwise(const Args& a, float* dh, cudaStream_t s);
// The scale's backward: dg = dh * s, (M, N), rounded to the linear storage (autograd casts the
// gradient to g's type).
void launch_dg_of_dh(const Args& a, const float* dh, void* dg, cudaStream_t s);
// dh *= g elementwise, in place (ds's terms).
void launch_times_g(const Args& a, float* dh, cudaStream_t s);
// ds[j] = sum over rows of the fp32 (dh * g)[i][j].
void launch_dscale_sum(const Args& a, const float* dh_times_g, void* workspace, cudaStream_t s);
// db[j] = sum over rows of dg[i][j], dg and db in the linear storage (the sum in fp32).
void launch_dbias_sum(const Args& a, const void* dg, void* workspace, cudaStream_t s);

}  // namespace nb::gemm_scale_bn_bwd
