#pragma once
// The kernels that run after a GEMM in the pipeline variants, as host launchers on a stream
// (for .cu files: it names the device Welford state). Matrices are row-major (M, N); `affine`
// holds 2N floats, scale[0..N) then shift[0..N).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/gemm_pipelines/bn_columns.cuh"

namespace nb::linear {

// --- what PyTorch eager runs, one kernel per step (the unfused baselines) ---
// g[r][c] = bias[c]: addmm copies the bias into the output before the GEMM accumulates.
void launch_bias_rows(float* g, const float* bias, int m, int n, cudaStream_t s);
// out[i] = in[i] widened: a bf16 problem's bias for a GEMM epilogue that adds an fp32 one.
void launch_widen(const __nv_bfloat16* in, float* out, int n, cudaStream_t s);
// out = in * scale[c] (per_column) or in * scale[0].
void launch_scale(const float* in, float* out, const float* scale, int m, int n, bool per_column, cudaStream_t s);
// The passes that read h take it as fp32 or, for a bf16 problem, as the bf16 autocast's GEMM
// writes (`In`, instantiated for float and __nv_bfloat16); they compute and write fp32.
// Welford partials of chunks of 256 rows: partials[chunk * n + c], column_partial_chunks(m) chunks.
template <class In>
void launch_column_partials(const In* h, dev::Welford* partials, int m, int n, cudaStream_t s);
int column_partial_chunks(int m);
// One thread per column merges its partials (Chan), commits the BatchNorm statistics of
// h = g * column_scale[c] (partials of g; column_scale null when they are already of h) and
// writes the affine that maps the partials' input to y, times `post_scale` (a device scalar, or
// null for 1).
void launch_commit_columns(const dev::Welford* partials, int chunks, const dev::BnColumnArgs& bn,
                           const float* column_scale, const float* post_scale, float* affine, int n, cudaStream_t s);
// The same commit from column sums and sums of squares (var = E[h^2] - E[h]^2, clamped at 0).
void launch_commit_column_sums(const float* sum, const float* sumsq, int m, const dev::BnColumnArgs& bn,
                               const float* post_scale, float* affine, int n, cudaStream_t s);
// out = in * scale[c] + shift[c] (in may be out).
template <class In>
void launch_apply_columns(const In* in, float* out, const float* affine, int m, int n, cudaStream_t s);
// Row softmax of u = in * scale[c] + shift[c] (affine) or u = in (affine null); in may be out.
template <class In>
void launch_softmax_rows(const In* in, float* out, const float* affine, int m, int n, cudaStream_t s);
// GroupNorm of each row (G groups of N/G channels, per-channel affine): z = gn(g).
void launch_groupnorm_rows(const float* g, float* z, const float* gamma, const float* beta, int m, int n, int groups,
                           float eps, cudaStream_t s);
// mn[r] = min over c of z[r][c] (NaN-propagating, as torch.min).
void launch_min_rows(const float* z, float* mn, int m, int n, cudaStream_t s);
// out[c * m + r] = min over t < tiles of partial_min[t * m + r] + add_bias[c]: the (1, N, M, 1)
// broadcast of the row minimum plus the (1, N, 1, 1) bias.
void launch_min_broadcast(const float* partial_min, int tiles, const float* add_bias, float* out, int m, int n,
                          cudaStream_t s);

// --- one kernel for everything after the GEMM (the cuBLASLt-epilogue variants) ---
// BatchNorm of h = g * scale[c] (scale may be null) over all M rows, from g into y (g may be y,
// fp32, or a bf16 problem's bf16 g). M <= 1024: one kernel, a CTA per 32-column strip kept in
// shared memory between statistics and normalize (g read once). Larger M: Welford partials over
// row chunks, commit, apply (three kernels, bn_columns_workspace_bytes of workspace). With
// affine_out set it only commits and writes the affine (for g) times *post_scale, leaving y alone.
std::size_t bn_columns_workspace_bytes(int m, int n);
template <class In>
void launch_bn_columns(const In* g, float* y, const float* scale, const dev::BnColumnArgs& bn, int m, int n,
                       cudaStream_t s, void* workspace, const float* post_scale = nullptr, float* affine_out = nullptr);
// GroupNorm + row min (a CTA per row, g read once, M floats of row_min written), then the
// broadcast bias write; g fp32 or a bf16 problem's bf16.
template <class In>
void launch_groupnorm_min_rows(const In* g, const float* gamma, const float* beta, const float* add_bias,
                               float* out, float* row_min, int m, int n, int groups, float eps, cudaStream_t s);

}  // namespace nb::linear
