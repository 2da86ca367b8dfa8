#pragma once
// Min-reduction helpers: a NaN-propagating min (fminf would drop a NaN; torch.min keeps it) with
// +Inf as identity, usable with the shared warp_reduce / block_reduce of kernels/common.
#include <cuda_runtime.h>

#include "harness/device_buffer.hpp"
#include "harness/problem.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/min_dim1/spec.hpp"

namespace nb::min_dim1 {

struct MinNanOp {
  __device__ float operator()(float a, float b) const { return (a != a || a < b) ? a : b; }
  static __device__ float identity() { return __int_as_float(0x7f800000); }  // +Inf
};

struct Args {
  const float* x;
  float* y;
  long long b, c;
};

inline Args make_args(const Problem& p, const DeviceTensors& t) {
  const Shape s = shape_of(p);
  return {t.in(kX), t.out(kY), s.b, s.c};
}

}  // namespace nb::min_dim1
