#pragma once
// A pointer into dynamic shared memory moved up to the next kAlign-byte boundary: the dynamic
// region starts after the static one, 16-byte aligned only, so a kernel that wants its TMA
// destinations on a wider boundary asks its launch for kAlign bytes more and starts there.
// Declaring the alignment (`extern __shared__ __align__(N)`) is the cheaper form where it serves:
// the row kernels' stages moved to it, since ptxas rebuilt this run-time base (SR_SWINHI, the
// padding) before each use, about 12 instructions a load (docs/notes/memory-bound-round3.md,
// "Thirty-seventh"). The Hopper GEMM's ring (1024 bytes) still starts here, and so do fused_tma's
// stages for RMSNorm's rows of one or two parts, which measured 2-5% faster so ("Thirty-eighth").
#include <cuda_runtime.h>

#include <cstdint>

namespace nb::dev {

// The result is p moved by a byte count, not an integer made a pointer, so the compiler still knows
// it points into shared memory: its loads stay LDS with 32-bit addresses (made from the integer,
// fused_tma's stage loads were generic loads with 64-bit address arithmetic, about 25 instructions
// a pack).
template <unsigned kAlign, class T>
__device__ __forceinline__ T* align_shared_up(T* p) {
  static_assert(kAlign >= alignof(T) && (kAlign & (kAlign - 1)) == 0, "a power of two at least T's alignment");
  const auto pad = static_cast<unsigned>(-reinterpret_cast<std::uintptr_t>(p)) & (kAlign - 1);
  return reinterpret_cast<T*>(reinterpret_cast<char*>(p) + pad);
}

}  // namespace nb::dev
