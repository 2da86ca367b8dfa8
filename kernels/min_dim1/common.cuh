#pragma once
// Min-reduction helpers: the NaN-propagating min of kernels/primitives (fminf would drop a NaN;
// torch.min keeps it), and the kernels' argument block.
#include <cuda_runtime.h>

#include "harness/device_buffer.hpp"
#include "harness/problem.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/min_dim1/spec.hpp"

namespace nb::min_dim1 {

using nb::dev::MinNanOp;

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
