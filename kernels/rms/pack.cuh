#pragma once
// VEC consecutive floats moved as one access: a 16-byte LDG.128/STG.128 when VEC == 4, plain
// 4-byte accesses when VEC == 1. The caller guarantees 4*VEC-byte alignment.
#include <cuda_runtime.h>

namespace nb::rms {

template <int VEC>
struct alignas(sizeof(float) * VEC) Pack {
  float v[VEC];
};

template <int VEC>
__device__ __forceinline__ Pack<VEC> zero_pack() {
  Pack<VEC> p;
#pragma unroll
  for (int i = 0; i < VEC; ++i) p.v[i] = 0.0f;
  return p;
}

// Read-only path (ld.global.nc): the inputs are never written by the kernel.
template <int VEC>
__device__ __forceinline__ Pack<VEC> load_pack(const float* p) {
  static_assert(VEC == 1 || VEC == 4, "packs are 1 or 4 floats");
  if constexpr (VEC == 4) {
    const float4 t = __ldg(reinterpret_cast<const float4*>(p));
    return {{t.x, t.y, t.z, t.w}};
  } else {
    return {{__ldg(p)}};
  }
}

// The explicit store intrinsic: a plain float4 assignment was split into 4 scalar stores in
// some inlining contexts (nvcc 13).
template <int VEC>
__device__ __forceinline__ void store_pack(float* p, const Pack<VEC>& a) {
  if constexpr (VEC == 4) {
    __stwb(reinterpret_cast<float4*>(p), make_float4(a.v[0], a.v[1], a.v[2], a.v[3]));
  } else {
    *p = a.v[0];
  }
}

}  // namespace nb::rms
