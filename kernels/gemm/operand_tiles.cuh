#pragma once
// Operand policies: where a GEMM operand's tiles come from, beside the epilogue policies that
// say where its output goes (tile_view.cuh). The GEMM is C = A B^T with A (M x K) and B (N x K)
// in GEMM coordinates; each operand is a source (what the values are) in a layout (how GEMM
// coordinates map onto the source's storage):
//   KMajor:  storage (rows, K), K contiguous: nn.Linear's x and W in the forward;
//   MNMajor: storage (K, rows), rows contiguous: W in dx = dg W, x and dg^T in dW = dg^T x.
// A source reads four consecutive elements along its storage's contiguous dimension in two
// steps: fetch() issues the global loads into a Raw register value (in flight while the
// mainloop multiplies the previous tile), finish() turns it into the four values (zero past the
// storage's edges) just before they are stored to shared memory. PlainSource reads a matrix; a
// prologue source computes its values in finish().
#include <cuda_runtime.h>

#include <cstdint>

namespace nb::gemm {

struct PlainSource {
  using Raw = float4;
  const float* p;
  int rows, cols;  // storage extent, row-major, cols contiguous

  template <bool kVector>
  __device__ Raw fetch(int row, int col) const {
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
  template <bool kVector>
  __device__ float4 finish(const Raw& r, int, int) const {
    return r;
  }
  // Whether 16-byte loads are safe: rows of a multiple of 4 floats, 16-byte aligned.
  bool vector_ok() const { return cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
};

// Calls f(i, slot) for each of this thread's L float4 slots of a tile of kSlots slots.
template <int kSlots, int THREADS, int L, class F>
__device__ void for_each_slot(F f) {
#pragma unroll
  for (int i = 0; i < L; ++i) {
    const int slot = threadIdx.x + i * THREADS;
    if (kSlots % THREADS == 0 || slot < kSlots) f(i, slot);
  }
}

// Register-staged tile loaders: a ROWS x BK tile moves as float4 slots, THREADS threads,
// loads() each. store_kmajor writes the SIMT mainloop's shared layout (s[k][row], leading
// dimension LD), store_rowmajor the tf32 mainloop's (s[row][k]); load and store must be called
// with the same kKFast (the slot order: see MNMajor).
template <class Source>
struct KMajor {
  using Raw = typename Source::Raw;
  Source src;  // storage (gemm rows, K)

  template <int ROWS, int BK, int THREADS>
  static constexpr int loads() {
    return (ROWS * BK / 4 + THREADS - 1) / THREADS;
  }
  // Slot s holds row s / (BK / 4), k (s % (BK / 4)) * 4 .. + 3, whatever the store.
  template <int BK>
  __device__ static void slot_at(int slot, int& row, int& k) {
    row = slot / (BK / 4), k = (slot % (BK / 4)) * 4;
  }
  template <bool kVector, int ROWS, int BK, int THREADS, bool kKFast = false, int L>
  __device__ void load(int row0, int k0, Raw (&st)[L]) const {
    for_each_slot<ROWS * BK / 4, THREADS, L>([&](int i, int slot) {
      int r, k;
      slot_at<BK>(slot, r, k);
      st[i] = src.template fetch<kVector>(row0 + r, k0 + k);
    });
  }
  template <bool kVector, int ROWS, int BK, int THREADS, int LD, int L>
  __device__ void store_kmajor(const Raw (&st)[L], int row0, int k0, float* s) const {
    for_each_slot<ROWS * BK / 4, THREADS, L>([&](int i, int slot) {
      int r, k;
      slot_at<BK>(slot, r, k);
      const float4 v = src.template finish<kVector>(st[i], row0 + r, k0 + k);
      float* p = s + k * LD + r;
      p[0] = v.x, p[LD] = v.y, p[2 * LD] = v.z, p[3 * LD] = v.w;
    });
  }
  template <bool kVector, int ROWS, int BK, int THREADS, int LD, int L>
  __device__ void store_rowmajor(const Raw (&st)[L], int row0, int k0, float* s) const {
    static_assert(LD % 4 == 0, "float4 stores");
    for_each_slot<ROWS * BK / 4, THREADS, L>([&](int i, int slot) {
      int r, k;
      slot_at<BK>(slot, r, k);
      *reinterpret_cast<float4*>(s + r * LD + k) = src.template finish<kVector>(st[i], row0 + r, k0 + k);
    });
  }
  bool vector_ok() const { return src.vector_ok(); }
};

template <class Source>
struct MNMajor {
  using Raw = typename Source::Raw;
  Source src;  // storage (K, gemm rows)

  template <int ROWS, int BK, int THREADS>
  static constexpr int loads() {
    return (ROWS * BK / 4 + THREADS - 1) / THREADS;
  }
  // Slot s holds k and rows r .. r + 3. By default consecutive slots walk the rows (consecutive
  // threads read consecutive 16 bytes of a storage row, and their float4 stores into s[k][row]
  // are conflict-free). kKFast walks k first: the four scalar stores of each slot into s[row][k]
  // then land on 32 distinct banks (row-walking slots would put a warp's stores on 2 banks).
  template <int ROWS, int BK, bool kKFast>
  __device__ static void slot_at(int slot, int& row, int& k) {
    static_assert(ROWS % 4 == 0, "4-row slots");
    if constexpr (kKFast)
      k = slot % BK, row = (slot / BK) * 4;
    else
      k = slot / (ROWS / 4), row = (slot % (ROWS / 4)) * 4;
  }
  template <bool kVector, int ROWS, int BK, int THREADS, bool kKFast = false, int L>
  __device__ void load(int row0, int k0, Raw (&st)[L]) const {
    for_each_slot<ROWS * BK / 4, THREADS, L>([&](int i, int slot) {
      int r, k;
      slot_at<ROWS, BK, kKFast>(slot, r, k);
      st[i] = src.template fetch<kVector>(k0 + k, row0 + r);
    });
  }
  template <bool kVector, int ROWS, int BK, int THREADS, int LD, int L>
  __device__ void store_kmajor(const Raw (&st)[L], int row0, int k0, float* s) const {
    static_assert(LD % 4 == 0, "float4 stores");
    for_each_slot<ROWS * BK / 4, THREADS, L>([&](int i, int slot) {
      int r, k;
      slot_at<ROWS, BK, false>(slot, r, k);
      *reinterpret_cast<float4*>(s + k * LD + r) = src.template finish<kVector>(st[i], k0 + k, row0 + r);
    });
  }
  template <bool kVector, int ROWS, int BK, int THREADS, int LD, int L>
  __device__ void store_rowmajor(const Raw (&st)[L], int row0, int k0, float* s) const {
    for_each_slot<ROWS * BK / 4, THREADS, L>([&](int i, int slot) {
      int r, k;
      slot_at<ROWS, BK, true>(slot, r, k);
      const float4 v = src.template finish<kVector>(st[i], k0 + k, row0 + r);
      float* p = s + r * LD + k;
      p[0] = v.x, p[LD] = v.y, p[2 * LD] = v.z, p[3 * LD] = v.w;
    });
  }
  bool vector_ok() const { return src.vector_ok(); }
};

}  // namespace nb::gemm
