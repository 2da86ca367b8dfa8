#pragma once
// TF32 tensor-core GEMM mainloop: mma.sync m16n8k8 on operands rounded with cvt.rna.tf32.f32,
// fp32 accumulation, a 3-stage cp.async pipeline into padded (conflict-free) shared tiles.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gemm/operand_tiles.cuh"
#include "kernels/gemm/operands.hpp"

namespace nb::gemm {

namespace tf32_detail {

__device__ inline std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte (or 4-byte) async copies; src_bytes == 0 copies nothing and zero-fills the destination.
__device__ inline void cp_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ inline void cp_async_4(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Four 8x4 fp32 matrices (8 rows of 16 bytes each) from shared memory; lane l gives the row
// address of matrix l / 8 and receives row (l % 32) / 4, column l % 4 of each.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const float* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

// fp32 bits -> tf32 (round to nearest, ties away from zero), still in a 32-bit register.
__device__ inline std::uint32_t to_tf32(std::uint32_t f32_bits) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(f32_bits)));
  return r;
}

__device__ inline void mma_tf32(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

}  // namespace tf32_detail

// BM x BN tile per CTA, BK deep per stage, WARPS_M x WARPS_N warps; each warp owns a
// (BM / WARPS_M) x (BN / WARPS_N) block of m16n8 accumulator fragments.
// Each warp rounds the fragments it loads (cvt.rna.tf32.f32). Rounding each stage once in shared
// memory instead was measured slower at every gemm_configs shape on the H100 (29% against 33% of
// cuBLAS at 1024 x 8192 x 8192) and was removed.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES = 3, int MIN_BLOCKS = 1>
struct Tf32Mainloop {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kThreads = WARPS_M * WARPS_N * 32, kMinBlocks = MIN_BLOCKS;
  static constexpr int kWarpM = BM / WARPS_M, kWarpN = BN / WARPS_N;
  static constexpr int kFragsM = kWarpM / 16, kFragsN = kWarpN / 8;
  static_assert(kWarpM % 16 == 0 && kWarpN % 16 == 0 && BK % 8 == 0, "m16n8k8 fragments, B loaded in pairs");
  static_assert(STAGES >= 2, "a pipeline needs two stages");

  // Shared tiles keep the global layout (a_s[m][k], b_s[n][k]); 4 floats of padding make rows
  // 16-byte aligned and put the 8 rows of each ldmatrix on distinct banks.
  static constexpr int kLd = BK + 4;
  static constexpr int kStageFloats = (BM + BN) * kLd;
  static constexpr int kSmemFloats = STAGES * kStageFloats;
  static constexpr int kStagedLd = BN + 8;  // float2 fragment stores of a half-warp hit 32 banks

  struct Accumulators {
    float v[kFragsM][kFragsN][4];
  };

  __device__ static void zero(Accumulators& acc) {
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < kFragsN; ++j)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc.v[i][j][q] = 0.f;
  }

  // Issues the copies of one BM x BK and BN x BK stage, zero-filling beyond the matrix edges.
  template <bool kVector>
  __device__ static void load_stage(const Operands& op, int row0, int col0, int k0, float* stage) {
    copy_rows<kVector, BM>(op.a, op.m, op.k, row0, k0, stage);
    copy_rows<kVector, BN>(op.b, op.n, op.k, col0, k0, stage + BM * kLd);
  }

  template <bool kVector, int ROWS>
  __device__ static void copy_rows(const float* mat, int rows, int k, int row0, int k0, float* dst) {
    using namespace tf32_detail;
    if constexpr (kVector) {
      constexpr int kVecPerRow = BK / 4, kSlots = ROWS * kVecPerRow;
#pragma unroll
      for (int i = 0; i < (kSlots + kThreads - 1) / kThreads; ++i) {
        const int slot = threadIdx.x + i * kThreads;
        if (kSlots % kThreads != 0 && slot >= kSlots) break;
        const int r = slot / kVecPerRow, c = (slot % kVecPerRow) * 4;
        const bool inside = row0 + r < rows && k0 + c < k;  // k % 4 == 0: all four or none
        const float* src = inside ? mat + static_cast<long long>(row0 + r) * k + k0 + c : mat;
        cp_async_16(dst + r * kLd + c, src, inside ? 16 : 0);
      }
    } else {
      constexpr int kSlots = ROWS * BK;
#pragma unroll
      for (int i = 0; i < (kSlots + kThreads - 1) / kThreads; ++i) {
        const int slot = threadIdx.x + i * kThreads;
        if (kSlots % kThreads != 0 && slot >= kSlots) break;
        const int r = slot / BK, c = slot % BK;
        const bool inside = row0 + r < rows && k0 + c < k;
        const float* src = inside ? mat + static_cast<long long>(row0 + r) * k + k0 + c : mat;
        cp_async_4(dst + r * kLd + c, src, inside ? 4 : 0);
      }
    }
  }

  // Fragment bits as the mma takes them: rounded to nearest tf32.
  __device__ static std::uint32_t operand(std::uint32_t bits) { return tf32_detail::to_tf32(bits); }

  __device__ static void compute_stage(const float* stage, int warp_row, int warp_col, Accumulators& acc) {
    using namespace tf32_detail;
    const int lane = threadIdx.x % 32, quad = lane / 8, r8 = lane % 8;
    // A fragment matrices: rows +0/+8 (quad bit 0), k +0/+4 (quad bit 1) -> a0..a3 of the mma.
    const float* a_s = stage + (warp_row + r8 + (quad & 1) * 8) * kLd + (quad >> 1) * 4;
    // B matrices for two n8 fragments: k +0/+4 (quad bit 0), n +0/+8 (quad bit 1).
    const float* b_s = stage + BM * kLd + (warp_col + r8 + (quad >> 1) * 8) * kLd + (quad & 1) * 4;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      std::uint32_t a[kFragsM][4], b[kFragsN][2];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
        ldmatrix_x4(a[i], a_s + i * 16 * kLd + kk);
#pragma unroll
        for (int q = 0; q < 4; ++q) a[i][q] = operand(a[i][q]);
      }
#pragma unroll
      for (int j = 0; j < kFragsN; j += 2) {
        std::uint32_t r[4];
        ldmatrix_x4(r, b_s + j * 8 * kLd + kk);
        b[j][0] = operand(r[0]), b[j][1] = operand(r[1]);
        b[j + 1][0] = operand(r[2]), b[j + 1][1] = operand(r[3]);
      }
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) mma_tf32(acc.v[i][j], a[i], b[j]);
    }
  }

  __device__ static int warp_row() { return (threadIdx.x / 32 / WARPS_N) * kWarpM; }
  __device__ static int warp_col() { return (threadIdx.x / 32 % WARPS_N) * kWarpN; }

  // acc = A[row0 : row0 + BM, :] * B[col0 : col0 + BN, :]^T with tf32 products. kVector: K % 4
  // == 0 and both matrices 16-byte aligned. Returns with every copy landed; the caller syncs
  // before reusing shared memory.
  template <bool kVector>
  __device__ static void run(const Operands& op, int row0, int col0, float* smem, Accumulators& acc) {
    using namespace tf32_detail;
    zero(acc);
    const int k_tiles = (op.k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) load_stage<kVector>(op, row0, col0, s * BK, smem + s * kStageFloats);
      cp_async_commit();
    }
    const int wr = warp_row(), wc = warp_col();
    for (int t = 0; t < k_tiles; ++t) {
      cp_async_wait<STAGES - 2>();  // stage t has landed (for this thread) ...
      __syncthreads();              // ... for all threads, and stage t - 1 is no longer read
      const int next = t + STAGES - 1;
      if (next < k_tiles) load_stage<kVector>(op, row0, col0, next * BK, smem + (next % STAGES) * kStageFloats);
      cp_async_commit();
      compute_stage(smem + (t % STAGES) * kStageFloats, wr, wc, acc);
    }
    cp_async_wait<0>();
  }

  // The same product with operand policies (operand_tiles.cuh), register-staged: a prologue
  // computes its values between the global load and the shared store, which cp.async cannot.
  // Two of the shared stages, as in the SIMT mainloop: tile t + 1 is in registers while tile t
  // is multiplied.
  template <bool kVector, class OperandA, class OperandB>
  __device__ static void run(const OperandA& a, const OperandB& b, int k, int row0, int col0, float* smem,
                             Accumulators& acc) {
    constexpr int kLoadsA = OperandA::template loads<BM, BK, kThreads>();
    constexpr int kLoadsB = OperandB::template loads<BN, BK, kThreads>();
    typename OperandA::Raw st_a[kLoadsA];
    typename OperandB::Raw st_b[kLoadsB];
    zero(acc);
    auto load = [&](int k0) {
      a.template load<kVector, BM, BK, kThreads, true>(row0, k0, st_a);
      b.template load<kVector, BN, BK, kThreads, true>(col0, k0, st_b);
    };
    auto store = [&](int k0, float* stage) {
      a.template store_rowmajor<kVector, BM, BK, kThreads, kLd>(st_a, row0, k0, stage);
      b.template store_rowmajor<kVector, BN, BK, kThreads, kLd>(st_b, col0, k0, stage + BM * kLd);
    };
    const int k_tiles = (k + BK - 1) / BK;
    const int wr = warp_row(), wc = warp_col();
    load(0);
    store(0, smem);
    __syncthreads();
    for (int t = 0; t < k_tiles; ++t) {
      const bool more = t + 1 < k_tiles;
      if (more) load((t + 1) * BK);
      compute_stage(smem + (t & 1) * kStageFloats, wr, wc, acc);
      if (more) store((t + 1) * BK, smem + ((t + 1) & 1) * kStageFloats);
      __syncthreads();
    }
  }

  // Writes the fragments to the row-major staged tile (ld kStagedLd): c0 c1 at (g, 2t), c2 c3
  // at (g + 8, 2t) of each m16n8 fragment, g = lane / 4, t = lane % 4.
  __device__ static void stage(const Accumulators& acc, float* tile) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int wr = warp_row(), wc = warp_col();
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) {
        float* p = tile + (wr + i * 16 + g) * kStagedLd + wc + j * 8 + 2 * t;
        *reinterpret_cast<float2*>(p) = make_float2(acc.v[i][j][0], acc.v[i][j][1]);
        *reinterpret_cast<float2*>(p + 8 * kStagedLd) = make_float2(acc.v[i][j][2], acc.v[i][j][3]);
      }
  }
};

}  // namespace nb::gemm
