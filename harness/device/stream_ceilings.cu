// Access-pattern ceilings: persistent grid-stride kernels over float4 that only read (summed into a
// per-block sink), only write a constant, or compute c = a + b, each with kUnroll accesses in flight per stream.
#include "harness/device/stream_ceilings.hpp"

#include <algorithm>
#include <functional>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/timing/event_timer.hpp"
#include "harness/timing/statistics.hpp"

namespace nb {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent float4 loads (or stores) per thread per stream per iteration
constexpr int kWarmups = 3;

__device__ inline float4 add4(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

// Thread i visits i, i + stride, ...; the main loop issues kUnroll of those before using any.
__global__ void __launch_bounds__(kThreads) read_kernel(const float4* __restrict__ in, std::size_t n,
                                                        float* __restrict__ sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    float4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) acc = add4(acc, v[k]);
  }
  for (; i < n; i += stride) acc = add4(acc, in[i]);
  // The sum reaches memory, so the loads cannot be dropped; one value per block.
  float sum = acc.x + acc.y + acc.z + acc.w;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ float block_sum;
  if (threadIdx.x == 0) block_sum = 0.f;
  __syncthreads();
  if (threadIdx.x % 32 == 0) atomicAdd(&block_sum, sum);
  __syncthreads();
  if (threadIdx.x == 0) sink[blockIdx.x] = block_sum;
}

__global__ void __launch_bounds__(kThreads) write_kernel(float4* __restrict__ out, std::size_t n, float value) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  const float4 v = make_float4(value, value, value, value);
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) out[i + k * stride] = v;
  }
  for (; i < n; i += stride) out[i] = v;
}

__global__ void __launch_bounds__(kThreads) read2_write1_kernel(const float4* __restrict__ a,
                                                                const float4* __restrict__ b,
                                                                float4* __restrict__ c, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    float4 va[kUnroll], vb[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      va[k] = a[i + k * stride];
      vb[k] = b[i + k * stride];
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) c[i + k * stride] = add4(va[k], vb[k]);
  }
  for (; i < n; i += stride) c[i] = add4(a[i], b[i]);
}

// Persistent grid: as many blocks as are resident at once on every SM.
template <class Kernel> int persistent_blocks(Kernel kernel, const GpuInfo& gpu) {
  int blocks_per_sm = 0;
  NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kThreads, 0));
  return gpu.sm_count * std::max(blocks_per_sm, 1);
}

PatternCeiling time_pattern(const std::string& pattern, const std::string& traffic, std::size_t bytes_moved,
                            const std::function<void()>& launch, cudaStream_t stream, int samples) {
  const NvtxRange range("ceilings/" + pattern);
  EventTimer timer(stream);
  for (int i = 0; i < kWarmups; ++i) launch();
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(std::max(samples, 0)));
  for (int i = 0; i < samples; ++i) ms.push_back(timer.time_ms(launch));
  const SampleStats st = summarize(ms);
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

std::vector<PatternCeiling> measure_stream_ceilings(const GpuInfo& gpu, cudaStream_t stream, std::size_t bytes,
                                                    int samples) {
  // One allocation for all three patterns; read2_write1 uses it as three equal, disjoint thirds.
  const std::size_t vectors = bytes / sizeof(float4);
  const std::size_t third = vectors / 3;
  DeviceBuffer data(vectors * sizeof(float4));
  NB_CUDA_CHECK(cudaMemsetAsync(data.get(), 0x3f, data.bytes(), stream));  // 0x3f3f3f3f: about 0.75f
  float4* v = data.as<float4>();

  const int read_blocks = persistent_blocks(read_kernel, gpu);
  const int write_blocks = persistent_blocks(write_kernel, gpu);
  const int read2_write1_blocks = persistent_blocks(read2_write1_kernel, gpu);
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
