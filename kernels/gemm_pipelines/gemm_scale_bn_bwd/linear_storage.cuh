#pragma once
// The tensors whose storage follows the problem's precision (x, W, g and nn.Linear's gradients
// dx, dW, db) as a kernel templated on that storage G reaches them: float for fp32 and tf32
// problems (Args' own pointers), __nv_bfloat16 for bf16 ones (Args::bf16). dg, which autograd
// casts to g's type, is held in G too. The host picks G with with_linear_storage.
#include <cuda_bf16.h>

#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"

namespace nb::gemm_scale_bn_bwd {

template <class G>
struct LinearStorage;

template <>
struct LinearStorage<float> {
  __host__ __device__ static const float* x(const Args& a) { return a.x; }
  __host__ __device__ static const float* weight(const Args& a) { return a.weight; }
  __host__ __device__ static const float* g(const Args& a) { return a.g; }
  __host__ __device__ static float* dx(const Args& a) { return a.dx; }
  __host__ __device__ static float* dweight(const Args& a) { return a.dweight; }
  __host__ __device__ static float* dbias(const Args& a) { return a.dbias; }
};

template <>
struct LinearStorage<__nv_bfloat16> {
  __host__ __device__ static const __nv_bfloat16* x(const Args& a) { return a.bf16.x; }
  __host__ __device__ static const __nv_bfloat16* weight(const Args& a) { return a.bf16.weight; }
  __host__ __device__ static const __nv_bfloat16* g(const Args& a) { return a.bf16.g; }
  __host__ __device__ static __nv_bfloat16* dx(const Args& a) { return a.bf16.dx; }
  __host__ __device__ static __nv_bfloat16* dweight(const Args& a) { return a.bf16.dweight; }
  __host__ __device__ static __nv_bfloat16* dbias(const Args& a) { return a.bf16.dbias; }
};

// Calls f(G{}) with the problem's linear storage: __nv_bfloat16 where Args holds bf16 tensors.
template <class F>
void with_linear_storage(const Args& a, F&& f) {
  if (a.bf16.g) f(__nv_bfloat16{});
  else f(float{});
}

}  // namespace nb::gemm_scale_bn_bwd
