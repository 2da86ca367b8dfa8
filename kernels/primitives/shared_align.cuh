#pragma once
// A pointer into dynamic shared memory moved up to the next kAlign-byte boundary: the dynamic
// region starts after the static one, 16-byte aligned only, so a kernel that wants its TMA
// destinations on a wider boundary asks its launch for kAlign bytes more and starts there.
#include <cuda_runtime.h>

#include <cstdint>

namespace nb::dev {

template <unsigned kAlign, class T>
__device__ __forceinline__ T* align_shared_up(T* p) {
  static_assert(kAlign >= alignof(T) && (kAlign & (kAlign - 1)) == 0, "a power of two at least T's alignment");
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<T*>((address + (kAlign - 1)) & ~std::uintptr_t(kAlign - 1));
}

}  // namespace nb::dev
