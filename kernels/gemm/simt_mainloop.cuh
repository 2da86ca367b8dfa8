#pragma once
// IEEE fp32 GEMM mainloop on the FFMA pipes (siboehm's "warptiling" SGEMM): K-major shared tiles
// read with float4, a register-staged double buffer, and a TM x TN outer product per thread.
#include <cuda_runtime.h>

#include "kernels/gemm/operand_tiles.cuh"
#include "kernels/gemm/operands.hpp"

namespace nb::gemm {

namespace simt_detail {

// Warps per CTA column (m) for a BM x BN tile of `warps` warps, each thread owning TM x TN:
// the split whose per-warp thread grid (THR_M x THR_N = 32) is closest to square.
constexpr int pick_warps_m(int bm, int bn, int tm, int tn, int warps) {
  int best = 0, best_score = 1 << 30;
  for (int wm = 1; wm <= warps; wm *= 2) {
    if (warps % wm != 0 || bm % wm != 0 || bn % (warps / wm) != 0) continue;
    const int warp_m = bm / wm, warp_n = bn / (warps / wm);
    if (warp_m % tm != 0 || warp_n % tn != 0) continue;
    const int thr_m = warp_m / tm, thr_n = warp_n / tn;
    if (thr_m * thr_n != 32) continue;
    const int score = thr_m > thr_n ? thr_m - thr_n : thr_n - thr_m;
    if (score < best_score) best = wm, best_score = score;
  }
  return best;
}

}  // namespace simt_detail

// BM x BN tile per CTA, BK deep per shared stage, THREADS threads each accumulating TM x TN.
// A thread's TM x TN is (TM/4) x (TN/4) blocks of 4 x 4, spread across its warp's tile so that
// the float4 shared loads of a warp broadcast and never conflict.
template <int BM, int BN, int BK, int TM, int TN, int THREADS, int MIN_BLOCKS = 1>
struct SimtMainloop {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kThreads = THREADS, kMinBlocks = MIN_BLOCKS;
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && THREADS % 32 == 0, "4-wide fragments");
  static constexpr int kWarps = THREADS / 32;
  static constexpr int kWarpsM = simt_detail::pick_warps_m(BM, BN, TM, TN, kWarps);
  static_assert(kWarpsM > 0, "no warp layout fits this BM, BN, TM, TN, THREADS");
  static constexpr int kWarpsN = kWarps / kWarpsM;
  static constexpr int kWarpM = BM / kWarpsM, kWarpN = BN / kWarpsN;     // one warp's tile
  static constexpr int kThrM = kWarpM / TM, kThrN = kWarpN / TN;         // its thread grid
  static constexpr int kSubM = TM / 4, kSubN = TN / 4;                   // 4x4 blocks per thread

  // Shared tiles, K-major: a_s[k][m] and b_s[k][n]; +4 keeps float4 alignment and spreads the
  // transposing stores of two k rows over both halves of the banks.
  static constexpr int kLdA = BM + 4, kLdB = BN + 4;
  static constexpr int kStageFloats = BK * (kLdA + kLdB);
  static constexpr int kSmemFloats = 2 * kStageFloats;
  static constexpr int kStagedLd = BN + 4;  // float4 tile stores of a quarter-warp hit 32 banks

  // Global -> register staging: float4 slots of the A and B tiles per thread (operand_tiles.cuh).
  static constexpr int kLoadsA = (BM * BK / 4 + THREADS - 1) / THREADS;
  static constexpr int kLoadsB = (BN * BK / 4 + THREADS - 1) / THREADS;

  struct Accumulators {
    float v[TM][TN];
  };

  // The registers holding the next tile's loads while the current one is multiplied.
  template <class OperandA, class OperandB>
  struct Staging {
    typename OperandA::Raw a[kLoadsA];
    typename OperandB::Raw b[kLoadsB];
  };

  template <bool kVector, class OperandA, class OperandB>
  __device__ static void load_tile(const OperandA& a, const OperandB& b, int row0, int col0, int k0,
                                   Staging<OperandA, OperandB>& st) {
    a.template load<kVector, BM, BK, THREADS>(row0, k0, st.a);
    b.template load<kVector, BN, BK, THREADS>(col0, k0, st.b);
  }

  // Finishes the staged slots (a prologue computes here) into the K-major shared tiles.
  template <bool kVector, class OperandA, class OperandB>
  __device__ static void store_tile(const OperandA& a, const OperandB& b, const Staging<OperandA, OperandB>& st,
                                    int row0, int col0, int k0, float* stage) {
    a.template store_kmajor<kVector, BM, BK, THREADS, kLdA>(st.a, row0, k0, stage);
    b.template store_kmajor<kVector, BN, BK, THREADS, kLdB>(st.b, col0, k0, stage + BK * kLdA);
  }

  // This thread's first row and column inside the CTA tile (its 4x4 blocks are kThrM * 4 rows
  // and kThrN * 4 columns apart).
  __device__ static int thread_row() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp / kWarpsN) * kWarpM + (lane / kThrN) * 4;
  }
  __device__ static int thread_col() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return (warp % kWarpsN) * kWarpN + (lane % kThrN) * 4;
  }

  __device__ static void compute_stage(const float* stage, int trow, int tcol, Accumulators& acc) {
    const float* a_s = stage + trow;
    const float* b_s = stage + BK * kLdA + tcol;
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < kSubM; ++i) {
        const float4 v = *reinterpret_cast<const float4*>(a_s + kk * kLdA + i * kThrM * 4);
        a[4 * i + 0] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < kSubN; ++j) {
        const float4 v = *reinterpret_cast<const float4*>(b_s + kk * kLdB + j * kThrN * 4);
        b[4 * j + 0] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc.v[i][j] = fmaf(a[i], b[j], acc.v[i][j]);
    }
  }

  // acc = A[row0 : row0 + BM, :] * B[col0 : col0 + BN, :]^T over k, A and B operand policies
  // (operand_tiles.cuh). kVector: both sources take 16-byte loads. Leaves shared memory in use:
  // the caller syncs before reusing it.
  template <bool kVector, class OperandA, class OperandB>
  __device__ static void run(const OperandA& a, const OperandB& b, int k, int row0, int col0, float* smem,
                             Accumulators& acc) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc.v[i][j] = 0.f;
    const int trow = thread_row(), tcol = thread_col();
    const int k_tiles = (k + BK - 1) / BK;
    Staging<OperandA, OperandB> st;
    load_tile<kVector>(a, b, row0, col0, 0, st);
    store_tile<kVector>(a, b, st, row0, col0, 0, smem);
    __syncthreads();
    for (int t = 0; t < k_tiles; ++t) {
      const bool more = t + 1 < k_tiles;
      if (more) load_tile<kVector>(a, b, row0, col0, (t + 1) * BK, st);  // in flight during the math
      compute_stage(smem + (t & 1) * kStageFloats, trow, tcol, acc);
      if (more) store_tile<kVector>(a, b, st, row0, col0, (t + 1) * BK, smem + ((t + 1) & 1) * kStageFloats);
      __syncthreads();
    }
  }

  // The forward's operands: x and W, both K-major.
  template <bool kVector>
  __device__ static void run(const Operands& op, int row0, int col0, float* smem, Accumulators& acc) {
    run<kVector>(KMajor<PlainSource>{{op.a, op.m, op.k}}, KMajor<PlainSource>{{op.b, op.n, op.k}}, op.k, row0, col0,
                 smem, acc);
  }

  // Writes the accumulators to the row-major staged tile (ld kStagedLd), float4 per 4 columns.
  __device__ static void stage(const Accumulators& acc, float* tile) {
    const int trow = thread_row(), tcol = thread_col();
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = trow + (i / 4) * kThrM * 4 + i % 4;
#pragma unroll
      for (int j = 0; j < kSubN; ++j) {
        const int c = tcol + j * kThrN * 4;
        *reinterpret_cast<float4*>(tile + r * kStagedLd + c) =
            make_float4(acc.v[i][4 * j], acc.v[i][4 * j + 1], acc.v[i][4 * j + 2], acc.v[i][4 * j + 3]);
      }
    }
  }
};

}  // namespace nb::gemm
