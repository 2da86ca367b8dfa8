#pragma once
// The storage element types of the row ops (float, bf16, fp16) seen from a kernel: conversion to
// and from the fp32 the kernels compute in, and packs of VEC consecutive elements moved as one
// access (16 bytes when VEC * sizeof(T) == 16), converted to floats in registers. Host code picks
// the instantiation for a problem's dtype with dispatch_storage.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "harness/dtype.hpp"

namespace nb::dev {

template <class T> __device__ __forceinline__ float to_float(T v);
template <> __device__ __forceinline__ float to_float<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }

// Round to nearest even, as PyTorch's .to(dtype).
template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

// How many elements of T fill 16 bytes: 4 floats, 8 bf16 or fp16.
template <class T> constexpr int kPack16 = static_cast<int>(16 / sizeof(T));

// VEC consecutive elements of T as stored; VEC * sizeof(T) is 2, 4, 8 or 16 bytes, or one element.
template <class T, int VEC>
struct alignas(sizeof(T) * VEC) StoredPack {
  T v[VEC];
};

// VEC values in fp32 registers.
template <int VEC>
struct FloatPack {
  float v[VEC];
};

// A pack of zeros: what a lane that owns no pack adds to a row's sums.
template <int VEC>
__device__ __forceinline__ FloatPack<VEC> zero_float_pack() {
  FloatPack<VEC> p;
#pragma unroll
  for (int i = 0; i < VEC; ++i) p.v[i] = 0.0f;
  return p;
}

// The raw bits of a pack as one access: 16, 8, 4 or 2 bytes.
template <int BYTES> struct RawWord;
template <> struct RawWord<16> { using type = uint4; };
template <> struct RawWord<8> { using type = uint2; };
template <> struct RawWord<4> { using type = unsigned; };
template <> struct RawWord<2> { using type = unsigned short; };

// The raw bits of a pack of VEC elements of T as one word: what a load, a shared-memory slice or
// a register fetched ahead holds before the math needs floats.
template <class T, int VEC>
using PackWord = typename RawWord<static_cast<int>(sizeof(T)) * VEC>::type;

// A pack's raw bits widened to fp32 in registers. bf16 is fp32's top half, so each 32-bit word of
// two gives its values by a shift and a mask, one instruction a value (the conversion intrinsic
// took two for the upper one: a byte permute, then the shift).
template <class T, int VEC>
__device__ __forceinline__ FloatPack<VEC> widen(const PackWord<T, VEC>& raw) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && VEC % 2 == 0) {
    const unsigned* words = reinterpret_cast<const unsigned*>(&raw);
    FloatPack<VEC> out;
#pragma unroll
    for (int i = 0; i < VEC / 2; ++i) {
      out.v[2 * i] = __uint_as_float(words[i] << 16);
      out.v[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
    }
    return out;
  } else {
    StoredPack<T, VEC> s;
    *reinterpret_cast<PackWord<T, VEC>*>(&s) = raw;
    FloatPack<VEC> out;
#pragma unroll
    for (int i = 0; i < VEC; ++i) out.v[i] = to_float(s.v[i]);
    return out;
  }
}

// widen, in instructions the compiler keeps where they are written: never merged with an earlier
// widen of the same bits, nor hoisted. For a kernel that holds a row's packs raw in registers and
// widens them again at every pass over the row, so that bf16 and fp16 rows take half the registers
// of their fp32 values (a plain widen would be merged across the passes, the fp32 values kept).
template <class T, int VEC>
__device__ __forceinline__ FloatPack<VEC> rewiden(const PackWord<T, VEC>& raw) {
  if constexpr (sizeof(T) != 2 || VEC % 2 != 0) {
    return widen<T, VEC>(raw);
  } else {
    const unsigned* words = reinterpret_cast<const unsigned*>(&raw);
    FloatPack<VEC> out;
#pragma unroll
    for (int i = 0; i < VEC / 2; ++i) {
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {  // bf16 is fp32's top half: a shift and a mask
        asm volatile("shl.b32 %0, %2, 16;\n\tand.b32 %1, %2, 0xffff0000;"
                     : "=f"(out.v[2 * i]), "=f"(out.v[2 * i + 1])
                     : "r"(words[i]));
      } else {
        asm volatile(
            "{\n\t.reg .f16 lo, hi;\n\tmov.b32 {lo, hi}, %2;\n\tcvt.f32.f16 %0, lo;\n\tcvt.f32.f16 %1, hi;\n\t}"
            : "=f"(out.v[2 * i]), "=f"(out.v[2 * i + 1])
            : "r"(words[i]));
      }
    }
    return out;
  }
}

// v, as a value the compiler cannot see through: addresses made from it in a loop's body are made
// there, not hoisted out of the loop and held in registers through it (a row kernel's per-pack
// addresses of w, b and y, 64-bit each, would otherwise take registers its row needs).
__device__ __forceinline__ int opaque(int v) {
  int out;
  asm volatile("mov.b32 %0, %1;" : "=r"(out) : "r"(v));
  return out;
}

// Read-only path (ld.global.nc): the kernels never write their inputs. The caller guarantees
// sizeof(T) * VEC alignment.
template <class T, int VEC>
__device__ __forceinline__ FloatPack<VEC> load_as_float(const T* p) {
  return widen<T, VEC>(__ldg(reinterpret_cast<const PackWord<T, VEC>*>(p)));
}

// One thread's share of a row in registers: PPT packs, pack k at p + k * stride where mine(k),
// zeros elsewhere. Issue every load of a row (of each tensor) before widening any: a widen in
// the same branch as its load makes the next load wait for this one, and in bf16 and fp16, where
// widening is real work, that serialised a row's loads (rmsnorm_rows register_row at (32768,
// 8192) bf16 on an H200: 0.360 ms so, 0.259 ms with the loads issued first).
template <class T, int VEC, int PPT, class Mine>
__device__ __forceinline__ void load_pack_words(const T* p, long long stride, Mine mine, PackWord<T, VEC> (&raw)[PPT]) {
  using Word = PackWord<T, VEC>;
#pragma unroll
  for (int k = 0; k < PPT; ++k) raw[k] = mine(k) ? __ldg(reinterpret_cast<const Word*>(p + k * stride)) : Word{};
}

template <class T, int VEC, int PPT>
__device__ __forceinline__ void widen_packs(const PackWord<T, VEC> (&raw)[PPT], FloatPack<VEC> (&v)[PPT]) {
#pragma unroll
  for (int k = 0; k < PPT; ++k) v[k] = widen<T, VEC>(raw[k]);  // all-zero bits widen to +0 in every type
}

template <class T, int VEC, int PPT, class Mine>
__device__ __forceinline__ void load_packs_as_float(const T* p, long long stride, Mine mine, FloatPack<VEC> (&v)[PPT]) {
  PackWord<T, VEC> raw[PPT];
  load_pack_words<T, VEC>(p, stride, mine, raw);
  widen_packs<T, VEC>(raw, v);
}

// One thread's share of a row in registers, PPT packs loaded as load_pack_words does: held as fp32
// values (Held = false), or as stored and widened again at each use (Held = true, rewiden: bf16
// and fp16 rows in half the registers, at the cost of the conversions at every pass).
template <class T, int VEC, int PPT, bool Held>
struct RowPacks {
  FloatPack<VEC> v[PPT];
  template <class Mine>
  __device__ __forceinline__ void load(const T* p, long long stride, Mine mine) {
    load_packs_as_float<T, VEC>(p, stride, mine, v);
  }
  __device__ __forceinline__ FloatPack<VEC> operator[](int k) const { return v[k]; }
};

template <class T, int VEC, int PPT>
struct RowPacks<T, VEC, PPT, true> {
  PackWord<T, VEC> raw[PPT];  // zeros where a pack is not the thread's
  template <class Mine>
  __device__ __forceinline__ void load(const T* p, long long stride, Mine mine) {
    load_pack_words<T, VEC>(p, stride, mine, raw);
  }
  __device__ __forceinline__ FloatPack<VEC> operator[](int k) const { return rewiden<T, VEC>(raw[k]); }
};

// A 16-byte pack of T held as raw bits (a slice staged in shared memory, say) in fp32.
template <class T>
__device__ __forceinline__ FloatPack<kPack16<T>> widen16(const uint4& raw) {
  return widen<T, kPack16<T>>(raw);
}

// One store of the rounded pack (write-back: the next kernel may read it from L2).
template <class T, int VEC>
__device__ __forceinline__ void store_from_float(T* p, const FloatPack<VEC>& a) {
  using Raw = typename RawWord<static_cast<int>(sizeof(T)) * VEC>::type;
  StoredPack<T, VEC> s;
#pragma unroll
  for (int i = 0; i < VEC; ++i) s.v[i] = from_float<T>(a.v[i]);
  __stwb(reinterpret_cast<Raw*>(p), *reinterpret_cast<const Raw*>(&s));
}

}  // namespace nb::dev

namespace nb {

// Calls f(T{}) with T the device storage type of `storage` (float, __nv_bfloat16, __half).
template <class F>
decltype(auto) dispatch_storage(DType storage, F&& f) {
  switch (storage_type(storage)) {
    case DType::bf16: return f(__nv_bfloat16{});
    case DType::f16: return f(__half{});
    case DType::f32:
    case DType::tf32: return f(float{});
  }
  throw std::logic_error("dispatch_storage: unknown dtype " + dtype_name(storage));
}

}  // namespace nb
