// Register tile: a block owns 32 columns of 4 positions (one 16-byte pack each) of one image and
// all C channels; its warps split C, each thread keeps its channels' packs in registers, the
// sums of squares meet in shared memory and y is written from the registers: x crosses DRAM
// once. H*W % 4 != 0 uses 1-float packs. C > 128 does not fit in registers: that tile is
// streamed twice, the second read hoping for L2. Rescales when x^2 overflows (claims `wide`).
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rmsnorm_nchw/column_tile.cuh"
#include "kernels/rmsnorm_nchw/spec.hpp"

namespace nb::rmsnorm_nchw {
namespace {

constexpr int kMaxChannelsPerThread = 16;
constexpr int kMaxRegisterChannels = kMaxSlices * kMaxChannelsPerThread;  // 128

// CPT channel packs per thread live in registers: up to 64 floats (CPT=16, VEC=4). The register
// cap follows: 2, 3 or 4 blocks of 256 threads per SM (<= 128, 80 or 64 registers).
template <int VEC, int CPT>
constexpr int min_blocks_per_sm() {
  return CPT * VEC >= 64 ? 2 : CPT * VEC >= 32 ? 3 : 4;
}

template <int VEC, int CPT>
__global__ void __launch_bounds__(kCols* kMaxSlices, (min_blocks_per_sm<VEC, CPT>()))
    rmsnorm_nchw_register_tile(const float* __restrict__ x, float* __restrict__ y, TileGeometry g) {
  __shared__ rms::Pack<VEC> partial[kMaxSlices][kCols];
  const long long channel_step = blockDim.y * g.plane;  // between a thread's consecutive channels
  for (long long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
    const TileColumn col = tile_column<VEC>(g, tile);
    const long long first = col.offset + threadIdx.y * g.plane;
    rms::Pack<VEC> v[CPT];
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
      const bool owned = col.active && static_cast<int>(threadIdx.y + k * blockDim.y) < g.channels;
      v[k] = owned ? rms::load_pack<VEC>(x + first + k * channel_step) : rms::zero_pack<VEC>();
    }
    const auto each_pack = [&](auto f) {
#pragma unroll
      for (int k = 0; k < CPT; ++k) f(v[k]);
    };
    const rms::Pack<VEC> inv = column_inv_rms<VEC>(each_pack, partial, g.inv_channels, g.eps);
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
      const bool owned = col.active && static_cast<int>(threadIdx.y + k * blockDim.y) < g.channels;
      if (owned) rms::store_pack<VEC>(y + first + k * channel_step, lanewise_product(v[k], inv));
    }
  }
}

// C > 128: the same tile, but each thread streams its channels from memory twice.
template <int VEC>
__global__ void __launch_bounds__(kCols* kMaxSlices)
    rmsnorm_nchw_streamed_tile(const float* __restrict__ x, float* __restrict__ y, TileGeometry g) {
  __shared__ rms::Pack<VEC> partial[kMaxSlices][kCols];
  const int slices = blockDim.y;
  for (long long tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
    const TileColumn col = tile_column<VEC>(g, tile);
    const auto each_pack = [&](auto f) {
      if (!col.active) return;
      for (int c = threadIdx.y; c < g.channels; c += slices) f(rms::load_pack<VEC>(x + col.offset + c * g.plane));
    };
    const rms::Pack<VEC> inv = column_inv_rms<VEC>(each_pack, partial, g.inv_channels, g.eps);
    if (!col.active) continue;
    for (int c = threadIdx.y; c < g.channels; c += slices) {
      const long long at = col.offset + c * g.plane;
      rms::store_pack<VEC>(y + at, lanewise_product(rms::load_pack<VEC>(x + at), inv));
    }
  }
}

template <int VEC>
void launch_tiles(const Shape& s, const float* x, float* y, cudaStream_t stream) {
  const int channels = static_cast<int>(s.c);
  const int slices = channels < kMaxSlices ? channels : kMaxSlices;
  const long long tiles_per_image = rms::ceil_div_ll(s.plane(), kCols * VEC);
  const TileGeometry g{s.plane(), channels, tiles_per_image, s.n * tiles_per_image, 1.0f / channels, s.eps};
  const unsigned blocks = rms::grid_blocks(g.tiles);
  const dim3 threads(kCols, slices);
  const int per_thread = (channels + slices - 1) / slices;
  if (per_thread <= 1) rmsnorm_nchw_register_tile<VEC, 1><<<blocks, threads, 0, stream>>>(x, y, g);
  else if (per_thread <= 2) rmsnorm_nchw_register_tile<VEC, 2><<<blocks, threads, 0, stream>>>(x, y, g);
  else if (per_thread <= 4) rmsnorm_nchw_register_tile<VEC, 4><<<blocks, threads, 0, stream>>>(x, y, g);
  else if (per_thread <= 8) rmsnorm_nchw_register_tile<VEC, 8><<<blocks, threads, 0, stream>>>(x, y, g);
  else if (per_thread <= 16) rmsnorm_nchw_register_tile<VEC, 16><<<blocks, threads, 0, stream>>>(x, y, g);
  else rmsnorm_nchw_streamed_tile<VEC><<<blocks, threads, 0, stream>>>(x, y, g);
  NB_CHECK_LAUNCH();
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  const float* x = t.in(X);
  float* y = t.out(Y);
  // Packs of 4 need every channel row to start on 16 bytes: H*W % 4 == 0 and aligned buffers.
  if (s.plane() % 4 == 0 && dev::aligned16(x) && dev::aligned16(y)) launch_tiles<4>(s, x, y, stream);
  else launch_tiles<1>(s, x, y, stream);
}

}  // namespace

std::unique_ptr<Variant> make_register_tile_variant() {
  static_assert(kMaxRegisterChannels == 128, "the idea below says 128");
  return make_kernel_variant(
      {"register_tile", "register",
       "block = 128 positions x all C; warps split C, channel packs (16-byte loads) stay in registers from "
       "the reduction to the write, so x is read once; C > 128 streams the tile twice; rescales on overflow",
       launch, nullptr, nullptr, {Distribution::wide}});
}

}  // namespace nb::rmsnorm_nchw
