// Welford: one block of 256 threads per row. Each thread keeps Welford's running mean and M2 over
// every 256th pack of the row (16-byte packs when N and the pointers allow), Chan's formula merges
// the threads' statistics through xor-shuffles and then the warps' through shared memory, so the
// variance never cancels (passes `offset`); the block writes y, re-reading its row from L2.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/merge.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/primitives/welford.cuh"
#include "kernels/rows/layernorm_rows/spec.hpp"
#include "kernels/rms/grid.hpp"

namespace nb::layernorm_rows {
namespace {

constexpr int kThreads = 256;

template <class T, int VEC>
__global__ void __launch_bounds__(kThreads)
    layernorm_rows_welford(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                           T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, long long rows,
                           long long n, float eps) {
  __shared__ dev::Welford scratch[32];
  const long long packs = n / VEC;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    dev::Welford s;
    for (long long p = threadIdx.x; p < packs; p += kThreads) {
      const dev::FloatPack<VEC> v = dev::load_as_float<T, VEC>(xr + p * VEC);
#pragma unroll
      for (int i = 0; i < VEC; ++i) s.add(v.v[i]);
    }
    s = dev::block_merge(s, scratch);
    // Lanes may differ in the last bits (the merge's order): every thread takes lane 0's, which is
    // the same in every warp.
    const float mu = __shfl_sync(dev::kFullMask, s.mean, 0);
    const float inv = rsqrtf(__shfl_sync(dev::kFullMask, s.variance_biased(), 0) + eps);
    for (long long p = threadIdx.x; p < packs; p += kThreads) {
      const dev::FloatPack<VEC> v = dev::load_as_float<T, VEC>(xr + p * VEC);
      const dev::FloatPack<VEC> wp = dev::load_as_float<T, VEC>(w + p * VEC);
      const dev::FloatPack<VEC> bp = dev::load_as_float<T, VEC>(b + p * VEC);
      dev::FloatPack<VEC> out;
#pragma unroll
      for (int i = 0; i < VEC; ++i) out.v[i] = fmaf((v.v[i] - mu) * inv, wp.v[i], bp.v[i]);
      dev::store_from_float<T, VEC>(yr + p * VEC, out);
    }
    if (threadIdx.x == 0) {
      mean[row] = mu;
      rstd[row] = inv;
    }
  }
}

template <class T>
void launch_typed(const Shape& s, const DeviceTensors& t, cudaStream_t stream) {
  const T *x = t.ptr<const T>(X), *w = t.ptr<const T>(W), *b = t.ptr<const T>(B);
  T* y = t.ptr<T>(Y);
  constexpr int kVec = dev::kPack16<T>;
  const bool packs = s.n % kVec == 0 && dev::aligned16(x, w) && dev::aligned16(b, y);
  const auto kernel = packs ? layernorm_rows_welford<T, kVec> : layernorm_rows_welford<T, 1>;
  kernel<<<rms::grid_blocks(s.m), kThreads, 0, stream>>>(x, w, b, y, t.ptr<float>(MEAN), t.ptr<float>(RSTD), s.m, s.n,
                                                          s.eps);
  NB_CHECK_LAUNCH();
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(problem.dtype, [&](auto stored) { launch_typed<decltype(stored)>(Shape::of(problem), t, stream); });
}

}  // namespace

std::unique_ptr<Variant> make_welford_variant() {
  return make_kernel_variant({"welford", "welford",
                              "one 256-thread block per row; Welford per thread, Chan's merge through shuffles and "
                              "shared memory; y re-reads the row",
                              launch, nullptr, nullptr, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::layernorm_rows
