// Shared-memory tree: a block of 32 positions x 8 channel slices. Each thread sums the squares of
// every 8th channel of its position, a halving tree in shared memory adds the 8 slices, and each
// thread writes its channels, re-reading x from L2 (a block's tile is only 32*C*4 bytes).
#include "harness/cuda_check.hpp"
#include "kernels/rms/grid.hpp"
#include "kernels/rmsnorm_nchw/spec.hpp"

namespace nb::rmsnorm_nchw {
namespace {

constexpr int kPositions = 32;  // threadIdx.x: consecutive positions, so each channel read is coalesced
constexpr int kSlices = 8;      // threadIdx.y: channels slice, slice + 8, slice + 16, ...

__global__ void __launch_bounds__(kPositions * kSlices)
    rmsnorm_nchw_smem(const float* __restrict__ x, float* __restrict__ y, long long positions, long long plane,
                      int channels, float eps) {
  __shared__ float partial[kSlices][kPositions];
  const int tx = threadIdx.x, slice = threadIdx.y;
  const long long tiles = (positions + kPositions - 1) / kPositions;
  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const long long p = tile * kPositions + tx;
    const bool active = p < positions;
    const long long offset = active ? (p / plane) * channels * plane + p % plane : 0;

    float sum_sq = 0.0f;
    if (active)
      for (int c = slice; c < channels; c += kSlices) sum_sq += x[offset + c * plane] * x[offset + c * plane];
    partial[slice][tx] = sum_sq;
    __syncthreads();
    for (int half = kSlices / 2; half > 0; half /= 2) {
      if (slice < half) partial[slice][tx] += partial[slice + half][tx];
      __syncthreads();
    }
    const float inv = rsqrtf(partial[0][tx] / channels + eps);
    if (active)
      for (int c = slice; c < channels; c += kSlices) y[offset + c * plane] = x[offset + c * plane] * inv;
    __syncthreads();  // partial[0] is read above before the next tile overwrites it
  }
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(s.positions(), kPositions));
  rmsnorm_nchw_smem<<<blocks, dim3(kPositions, kSlices), 0, stream>>>(t.in(X), t.out(Y), s.positions(), s.plane(),
                                                                      static_cast<int>(s.c), s.eps);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_smem_variant() {
  return make_kernel_variant({"smem", "smem",
                              "32 positions x 8 channel slices per block; a shared-memory halving tree adds the "
                              "slices; y re-reads x from L2",
                              launch});
}

}  // namespace nb::rmsnorm_nchw
