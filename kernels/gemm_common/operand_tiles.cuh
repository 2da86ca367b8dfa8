#pragma once
// Operand policies: where a GEMM operand's tiles come from, beside the epilogue policies that
// say where its output goes (tile_view.cuh). The GEMM is C = A B^T with A (M x K) and B (N x K)
// in GEMM coordinates; each operand is a source (what the values are) in a layout (how GEMM
// coordinates map onto the source's storage):
//   KMajor:  storage (rows, K), K contiguous: nn.Linear's x and W in the forward;
//   MNMajor: storage (K, rows), rows contiguous: W in dx = dg W, x and dg^T in dW = dg^T x.
// A source reads four consecutive elements along its storage's contiguous dimension, zero past
// its edges. PlainSource reads a matrix; a prologue source computes its values on the fly.
#include <cuda_runtime.h>

#include <cstdint>

namespace nb::gemm {

struct PlainSource {
  const float* p;
  int rows, cols;  // storage extent, row-major, cols contiguous

  template <bool kVector>
  __device__ float4 load4(int row, int col) const {
    float4 r = make_float4(0.f, 0.f, 0.f, 0.f);
    if (row >= rows) return r;
    const float* q = p + static_cast<long long>(row) * cols + col;
    if constexpr (kVector) {
      if (col < cols) r = __ldg(reinterpret_cast<const float4*>(q));  // cols % 4 == 0: all 4 inside
    } else {
      if (col + 0 < cols) r.x = __ldg(q + 0);
      if (col + 1 < cols) r.y = __ldg(q + 1);
      if (col + 2 < cols) r.z = __ldg(q + 2);
      if (col + 3 < cols) r.w = __ldg(q + 3);
    }
    return r;
  }
  // Whether 16-byte loads are safe: rows of a multiple of 4 floats, 16-byte aligned.
  bool vector_ok() const { return cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
};

// Register-staged tile loaders: a ROWS x BK tile moves as float4 slots, THREADS threads,
// loads() each; store_kmajor writes the SIMT mainloop's shared layout (s[k][row], leading
// dimension LD), store_rowmajor the tf32 mainloop's (s[row][k]).
template <class Source>
struct KMajor {
  Source src;  // storage (gemm rows, K)

  template <int ROWS, int BK, int THREADS>
  static constexpr int loads() {
    return (ROWS * BK / 4 + THREADS - 1) / THREADS;
  }
  // Slot s holds row s / (BK / 4), k (s % (BK / 4)) * 4 .. + 3.
  template <bool kVector, int ROWS, int BK, int THREADS, int L>
  __device__ void load(int row0, int k0, float4 (&st)[L]) const {
    constexpr int kPerRow = BK / 4, kSlots = ROWS * kPerRow;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int slot = threadIdx.x + i * THREADS;
      if (kSlots % THREADS == 0 || slot < kSlots)
        st[i] = src.template load4<kVector>(row0 + slot / kPerRow, k0 + (slot % kPerRow) * 4);
    }
  }
  template <int ROWS, int BK, int THREADS, int LD, int L>
  __device__ static void store_kmajor(const float4 (&st)[L], float* s) {
    constexpr int kPerRow = BK / 4, kSlots = ROWS * kPerRow;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int slot = threadIdx.x + i * THREADS;
      if (kSlots % THREADS == 0 || slot < kSlots) {
        float* p = s + (slot % kPerRow) * 4 * LD + slot / kPerRow;
        p[0] = st[i].x, p[LD] = st[i].y, p[2 * LD] = st[i].z, p[3 * LD] = st[i].w;
      }
    }
  }
  // The same slots into a row-major tile (s[row][k], the tf32 mainloop's layout): one float4.
  template <int ROWS, int BK, int THREADS, int LD, int L>
  __device__ static void store_rowmajor(const float4 (&st)[L], float* s) {
    static_assert(LD % 4 == 0, "float4 stores");
    constexpr int kPerRow = BK / 4, kSlots = ROWS * kPerRow;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int slot = threadIdx.x + i * THREADS;
      if (kSlots % THREADS == 0 || slot < kSlots)
        *reinterpret_cast<float4*>(s + (slot / kPerRow) * LD + (slot % kPerRow) * 4) = st[i];
    }
  }
  bool vector_ok() const { return src.vector_ok(); }
};

template <class Source>
struct MNMajor {
  Source src;  // storage (K, gemm rows)

  template <int ROWS, int BK, int THREADS>
  static constexpr int loads() {
    return (ROWS * BK / 4 + THREADS - 1) / THREADS;
  }
  // Slot s holds k s / (ROWS / 4), rows (s % (ROWS / 4)) * 4 .. + 3: consecutive threads read
  // consecutive 16 bytes of one storage row.
  template <bool kVector, int ROWS, int BK, int THREADS, int L>
  __device__ void load(int row0, int k0, float4 (&st)[L]) const {
    static_assert(ROWS % 4 == 0, "4-row slots");
    constexpr int kPerK = ROWS / 4, kSlots = BK * kPerK;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int slot = threadIdx.x + i * THREADS;
      if (kSlots % THREADS == 0 || slot < kSlots)
        st[i] = src.template load4<kVector>(k0 + slot / kPerK, row0 + (slot % kPerK) * 4);
    }
  }
  template <int ROWS, int BK, int THREADS, int LD, int L>
  __device__ static void store_kmajor(const float4 (&st)[L], float* s) {
    static_assert(LD % 4 == 0, "float4 stores");
    constexpr int kPerK = ROWS / 4, kSlots = BK * kPerK;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int slot = threadIdx.x + i * THREADS;
      if (kSlots % THREADS == 0 || slot < kSlots)
        *reinterpret_cast<float4*>(s + (slot / kPerK) * LD + (slot % kPerK) * 4) = st[i];
    }
  }
  template <int ROWS, int BK, int THREADS, int LD, int L>
  __device__ static void store_rowmajor(const float4 (&st)[L], float* s) {
    constexpr int kPerK = ROWS / 4, kSlots = BK * kPerK;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int slot = threadIdx.x + i * THREADS;
      if (kSlots % THREADS == 0 || slot < kSlots) {
        float* p = s + (slot % kPerK) * 4 * LD + slot / kPerK;
        p[0] = st[i].x, p[LD] = st[i].y, p[2 * LD] = st[i].z, p[3 * LD] = st[i].w;
      }
    }
  }
  bool vector_ok() const { return src.vector_ok(); }
};

}  // namespace nb::gemm
