// Access-pattern ceilings: kernels over float4 that only read (summed into a per-block sink),
// only write a constant, or compute c = a + b. Block b streams one contiguous chunk, so the GPU
// sweeps memory in address order (measured faster than a persistent grid-stride loop for 2R+1W).
#include "harness/timing/stream_ceilings.hpp"

#include <functional>

#include "harness/cuda_check.hpp"
#include "harness/device/grid_stride.cuh"
#include "harness/device_buffer.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/timing/event_timer.hpp"
#include "harness/timing/statistics.hpp"

namespace nb {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent float4 loads (or stores) per thread per stream in flight
constexpr std::size_t kChunk = std::size_t(kThreads) * kUnroll * 4;  // float4 per block: 64 KB
constexpr int kWarmups = 3;

__device__ inline float4 add4(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

// This block's chunk [begin, end) of n vectors.
struct Chunk {
  std::size_t begin, end;
};
__device__ inline Chunk block_chunk(std::size_t n) {
  const std::size_t begin = blockIdx.x * kChunk;
  return {begin, begin + kChunk < n ? begin + kChunk : n};
}

// Thread t visits begin + t, begin + t + kThreads, ...; kUnroll loads are issued before any is used.
__global__ void __launch_bounds__(kThreads) read_kernel(const float4* __restrict__ in, std::size_t n,
                                                        float* __restrict__ sink) {
  const Chunk c = block_chunk(n);
  std::size_t i = c.begin + threadIdx.x;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (; i + (kUnroll - 1) * kThreads < c.end; i += kUnroll * kThreads) {
    float4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = in[i + k * kThreads];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) acc = add4(acc, v[k]);
  }
  for (; i < c.end; i += kThreads) acc = add4(acc, in[i]);
  // The sum reaches memory, so the loads cannot be dropped; one value per block.
  float sum = acc.x + acc.y + acc.z + acc.w;
  sum = warp_sum(sum);
  __shared__ float block_sum;
  if (threadIdx.x == 0) block_sum = 0.f;
  __syncthreads();
  if (threadIdx.x % 32 == 0) atomicAdd(&block_sum, sum);
  __syncthreads();
  if (threadIdx.x == 0) sink[blockIdx.x] = block_sum;
}

__global__ void __launch_bounds__(kThreads) write_kernel(float4* __restrict__ out, std::size_t n, float value) {
  const Chunk c = block_chunk(n);
  const float4 v = make_float4(value, value, value, value);
  for (std::size_t i = c.begin + threadIdx.x; i < c.end; i += kThreads) out[i] = v;
}

__global__ void __launch_bounds__(kThreads) read2_write1_kernel(const float4* __restrict__ a,
                                                                const float4* __restrict__ b,
                                                                float4* __restrict__ out, std::size_t n) {
  const Chunk c = block_chunk(n);
  std::size_t i = c.begin + threadIdx.x;
  for (; i + (kUnroll - 1) * kThreads < c.end; i += kUnroll * kThreads) {
    float4 va[kUnroll], vb[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      va[k] = a[i + k * kThreads];
      vb[k] = b[i + k * kThreads];
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) out[i + k * kThreads] = add4(va[k], vb[k]);
  }
  for (; i < c.end; i += kThreads) out[i] = add4(a[i], b[i]);
}

unsigned chunk_blocks(std::size_t n) { return unsigned((n + kChunk - 1) / kChunk); }

PatternCeiling time_pattern(const std::string& pattern, const std::string& traffic, std::size_t bytes_moved,
                            const std::function<void()>& launch, cudaStream_t stream, int samples) {
  const NvtxRange range("ceilings/" + pattern);
  const SampleStats st = summarize(EventTimer(stream).sample_ms(launch, kWarmups, samples));
  PatternCeiling c;
  c.pattern = pattern;
  c.traffic = traffic;
  c.gbps = static_cast<double>(bytes_moved) / (st.median * 1e-3) / 1e9;
  c.cv = st.cv;
  c.bytes_moved = bytes_moved;
  c.samples = samples;
  return c;
}

}  // namespace

std::vector<PatternCeiling> measure_stream_ceilings(cudaStream_t stream, std::size_t bytes,
                                                    int samples) {
  // One allocation for all three patterns; read2_write1 uses it as three equal, disjoint thirds.
  const std::size_t vectors = bytes / sizeof(float4);
  const std::size_t third = vectors / 3;
  DeviceBuffer data(vectors * sizeof(float4));
  NB_CUDA_CHECK(cudaMemsetAsync(data.get(), 0x3f, data.bytes(), stream));  // 0x3f3f3f3f: about 0.75f
  float4* v = data.as<float4>();

  const unsigned read_blocks = chunk_blocks(vectors), write_blocks = read_blocks;
  const unsigned read2_write1_blocks = chunk_blocks(third);
  DeviceBuffer sink(static_cast<std::size_t>(read_blocks) * sizeof(float));

  std::vector<PatternCeiling> ceilings;
  ceilings.push_back(time_pattern(
      "read", "1 read", vectors * sizeof(float4),
      [&] {
        read_kernel<<<read_blocks, kThreads, 0, stream>>>(v, vectors, sink.as<float>());
        NB_CHECK_LAUNCH();
      },
      stream, samples));
  ceilings.push_back(time_pattern(
      "write", "1 write", vectors * sizeof(float4),
      [&] {
        write_kernel<<<write_blocks, kThreads, 0, stream>>>(v, vectors, 1.0f);
        NB_CHECK_LAUNCH();
      },
      stream, samples));
  ceilings.push_back(time_pattern(
      "read2_write1", "2 reads + 1 write", 3 * third * sizeof(float4),
      [&] {
        read2_write1_kernel<<<read2_write1_blocks, kThreads, 0, stream>>>(v, v + third, v + 2 * third, third);
        NB_CHECK_LAUNCH();
      },
      stream, samples));
  return ceilings;
}

}  // namespace nb
