// How fast can a kernel stream through DRAM, against cudaMemcpy? The harness's copy ceiling is a
// 1 GiB device-to-device cudaMemcpy (harness/timing/bandwidth_ceiling.cpp); several issue targets
// sit at or above it (torch.compile's RMSNorm rows and BatchNorm passes reach 100-101% of it).
// This probe times one streaming pass, y = x + 1 over `MiB` of fp32 (1024 by default), in the
// load/store designs a normalization pass can take, each checked element by element:
//   memcpy              cudaMemcpyAsync device to device (y = x; the harness's ceiling)
//   block T x U [hint]  a block of T threads owns T*U float4, all U loads before the stores
//                       (flat_pass.cuh's shape is 256 x 4); hints: cs (ld/st.global.cs,
//                       evict-first), nc (ld.global.nc.L1::no_allocate.L2::256B, st.global.cs)
//   persistent T x U    a resident grid (2048 threads an SM) striding over the same chunks
//   bulk S x K KB       TMA bulk copies (cp.async.bulk) through S shared-memory stages of K KB,
//                       one CTA an SM: `copy` stores the stage as it landed, `add` adds 1 in
//                       shared memory first
// The one-way rates (read only, write only, two reads and a write) are `normbench ceilings`'
// (harness/timing/stream_ceilings.cu). Prints each design's median of 15 timed passes (the
// harness's EventTimer, after 3 warm-up passes) in ms and GB/s (bytes read + written) and its ratio
// to memcpy's. Exit 1 when an output is wrong or a CUDA call fails, 77 without a GPU; 2 on a bad
// argument.
//   build/release/tests/stream_probe 1024
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device/grid_stride.cuh"
#include "harness/device_buffer.hpp"
#include "harness/timing/event_timer.hpp"
#include "harness/timing/statistics.hpp"
#include "kernels/primitives/bulk_copy.cuh"
#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/shared_address.cuh"
#include "tests/probes/probe_device.hpp"

namespace {

enum Hint { kPlain, kEvictFirst, kNoAllocate };

template <Hint H>
__device__ __forceinline__ float4 load(const float4* p) {
  if constexpr (H == kPlain) return *p;
  if constexpr (H == kEvictFirst) return __ldcs(p);
  if constexpr (H == kNoAllocate) {
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
  }
}

template <Hint H>
__device__ __forceinline__ void store(float4* p, float4 v) {
  if constexpr (H == kPlain)
    *p = v;
  else
    __stcs(p, v);
}

__device__ __forceinline__ float4 plus_one(float4 v) { return make_float4(v.x + 1.0f, v.y + 1.0f, v.z + 1.0f, v.w + 1.0f); }

// Chunk c is float4s [c*T*U, (c+1)*T*U): thread t loads t, t + T, ... (U of them), then stores.
template <int T, int U, Hint H>
__device__ __forceinline__ void chunk_pass(const float4* x, float4* y, long long n4, long long chunk) {
  const long long start = chunk * T * U + threadIdx.x;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (start + u * T < n4) v[u] = load<H>(x + start + u * T);
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (start + u * T < n4) store<H>(y + start + u * T, plus_one(v[u]));
}

// Block b takes chunk b.
template <int T, int U, Hint H>
__global__ void __launch_bounds__(T) block_chunks(const float4* x, float4* y, long long n4) {
  chunk_pass<T, U, H>(x, y, n4, blockIdx.x);
}

// A resident grid takes the chunks in turn.
template <int T, int U, Hint H>
__global__ void __launch_bounds__(T) persistent_chunks(const float4* x, float4* y, long long n4) {
  for (long long chunk = blockIdx.x; chunk * T * U < n4; chunk += gridDim.x) chunk_pass<T, U, H>(x, y, n4, chunk);
}

// --- TMA bulk copies (sm_90): kernels/primitives/bulk_copy.cuh ---

using nb::dev::bulk_load;
using nb::dev::bulk_store;
using nb::dev::bulk_wait_read;

// One CTA an SM walks tiles c, c + grid, ... of TILE bytes through STAGES (>= 3) stages: thread 0
// keeps STAGES - 1 loads ahead and stores each tile back from its stage; ADD: every thread adds 1
// to the tile in shared memory between the two (fence.proxy.async, then the block barrier, before
// the store reads it); without ADD thread 0 alone runs the loop.
template <int STAGES, int TILE, bool ADD>
__global__ void __launch_bounds__(256) bulk_tiles(const float* x, float* y, long long tiles) {
  static_assert(STAGES >= 3, "a stage is refilled two iterations after its tile was stored");
  extern __shared__ __align__(128) unsigned char stage_bytes[];
  __shared__ std::uint64_t landed[STAGES];
  const long long mine = tiles > blockIdx.x ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto stage = [&](long long i) { return stage_bytes + (i % STAGES) * TILE; };
  auto tile_of = [&](long long i) { return (blockIdx.x + i * gridDim.x) * (long long)(TILE / 4); };
  auto issue = [&](long long i) {
    nb::dev::mbarrier_arrive_expect_bytes(&landed[i % STAGES], TILE);
    bulk_load(stage(i), x + tile_of(i), TILE, &landed[i % STAGES]);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) nb::dev::mbarrier_init(&landed[s], 1);
    nb::dev::fence_barrier_init();
  }
  __syncthreads();
  if (!ADD && threadIdx.x != 0) return;
  if (threadIdx.x == 0)
    for (long long i = 0; i < STAGES - 1 && i < mine; ++i) issue(i);
  for (long long i = 0; i < mine; ++i) {
    nb::dev::mbarrier_wait(&landed[i % STAGES], unsigned((i / STAGES) & 1));
    if constexpr (ADD) {
      float4* v = reinterpret_cast<float4*>(stage(i));
      for (int k = threadIdx.x; k < TILE / 16; k += blockDim.x) v[k] = plus_one(v[k]);
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      bulk_store(y + tile_of(i), stage(i), TILE);
      bulk_wait_read<1>();  // the store of tile i - 1 has read its stage, which tile i + STAGES - 1 takes
      if (i + STAGES - 1 < mine) issue(i + STAGES - 1);  // into the stage of tile i - 1, added to before this barrier
    }
  }
  if (threadIdx.x == 0) nb::dev::bulk_wait_all();
}

// --- setup and checks ---

__global__ void fill_x(float* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = float(i % 4093) * 0.25f;
}

// Counts y[i] != x[i] + add (add 0: a copy).
__global__ void count_wrong(const float* x, const float* y, long long n, float add, unsigned long long* wrong) {
  unsigned long long w = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    w += y[i] != x[i] + add;
  if (w) atomicAdd(wrong, w);
}

struct Design {
  std::string name;
  float add;  // what y must hold over x
  std::function<void()> run;
};

int run(long long mib) {
  cudaDeviceProp prop{};
  NB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) {
    std::fprintf(stderr, "stream_probe: the bulk-copy designs need sm_90 (this GPU is sm_%d%d)\n", prop.major, prop.minor);
    return nb::probes::kSkip;
  }
  const long long bytes = mib << 20, n = bytes / 4, n4 = n / 4;
  const nb::DeviceBuffer x_buffer(bytes), y_buffer(bytes), wrong_buffer(sizeof(unsigned long long));
  float *x = x_buffer.as<float>(), *y = y_buffer.as<float>();
  auto* wrong = wrong_buffer.as<unsigned long long>();
  cudaStream_t stream;
  NB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int check_blocks = nb::grid_stride_blocks(n);
  fill_x<<<check_blocks, nb::kGridStrideThreads, 0, stream>>>(x, n);
  NB_CHECK_LAUNCH();

  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  std::vector<Design> designs;
  designs.push_back({"memcpy", 0.0f, [&] {
                       NB_CUDA_CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, stream));
                     }});
  auto blocks = [&](int chunk) { return unsigned((n4 + chunk - 1) / chunk); };
#define PROBE_BLOCK(T, U, H, label)                                                  \
  designs.push_back({"block " #T " x " #U label, 1.0f, [&] {                        \
                       block_chunks<T, U, H><<<blocks(T * U), T, 0, stream>>>(x4, y4, n4); \
                       NB_CHECK_LAUNCH();                                           \
                     }})
  PROBE_BLOCK(256, 4, kPlain, "");
  PROBE_BLOCK(256, 4, kEvictFirst, " cs");
  PROBE_BLOCK(256, 4, kNoAllocate, " nc");
  PROBE_BLOCK(256, 8, kPlain, "");
  PROBE_BLOCK(256, 8, kEvictFirst, " cs");
  PROBE_BLOCK(128, 2, kPlain, "");
  PROBE_BLOCK(128, 2, kEvictFirst, " cs");
  PROBE_BLOCK(512, 4, kPlain, "");
  PROBE_BLOCK(1024, 2, kPlain, "");
#undef PROBE_BLOCK
  const unsigned resident = unsigned(prop.multiProcessorCount) * 2048u;
#define PROBE_PERSISTENT(T, U, H, label)                                                 \
  designs.push_back({"persistent " #T " x " #U label, 1.0f, [&] {                      \
                       persistent_chunks<T, U, H><<<resident / T, T, 0, stream>>>(x4, y4, n4); \
                       NB_CHECK_LAUNCH();                                              \
                     }})
  PROBE_PERSISTENT(512, 4, kPlain, "");
  PROBE_PERSISTENT(256, 8, kEvictFirst, " cs");
#undef PROBE_PERSISTENT
  const unsigned sms = unsigned(prop.multiProcessorCount);
#define PROBE_BULK(S, KB, ADD, label)                                                                  \
  do {                                                                                                 \
    NB_CUDA_CHECK(cudaFuncSetAttribute(bulk_tiles<S, (KB) * 1024, ADD>,                                \
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (S) * (KB) * 1024)); \
    designs.push_back({"bulk " #S " x " #KB " KB " label, (ADD) ? 1.0f : 0.0f, [&] {                  \
                         bulk_tiles<S, (KB) * 1024, ADD><<<sms, 256, (S) * (KB) * 1024, stream>>>(      \
                             x, y, bytes / ((KB) * 1024));                                             \
                         NB_CHECK_LAUNCH();                                                            \
                       }});                                                                            \
  } while (0)
  if (bytes % (32 * 1024) == 0) {
    PROBE_BULK(4, 32, false, "copy");
    PROBE_BULK(4, 32, true, "add");
    PROBE_BULK(6, 32, false, "copy");
    PROBE_BULK(6, 32, true, "add");
    PROBE_BULK(12, 16, true, "add");
  }
#undef PROBE_BULK

  std::printf("%s, %d SMs; %lld MiB per buffer; median of 15 passes\n", prop.name, prop.multiProcessorCount, mib);
  std::printf("%-26s %10s %9s %10s\n", "design", "ms", "GB/s", "/ memcpy");
  nb::EventTimer timer(stream);
  double memcpy_gbps = 0.0;
  int failures = 0;
  for (const Design& d : designs) {
    NB_CUDA_CHECK(cudaMemsetAsync(y, 0xff, bytes, stream));  // NaN: a design that skips an element fails
    const double med = nb::summarize(timer.sample_ms(d.run, 3, 15)).median;
    const double gbps = 2.0 * double(bytes) / (med * 1e-3) / 1e9;  // read + written
    if (d.name == "memcpy") memcpy_gbps = gbps;
    unsigned long long bad = 0;
    NB_CUDA_CHECK(cudaMemsetAsync(wrong, 0, sizeof(bad), stream));
    count_wrong<<<check_blocks, nb::kGridStrideThreads, 0, stream>>>(x, y, n, d.add, wrong);
    NB_CHECK_LAUNCH();
    NB_CUDA_CHECK(cudaMemcpyAsync(&bad, wrong, sizeof(bad), cudaMemcpyDeviceToHost, stream));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("%-26s %10.4f %9.0f %10.3f%s\n", d.name.c_str(), med, gbps, gbps / memcpy_gbps,
                bad ? "  WRONG OUTPUT" : "");
    if (bad) {
      std::fprintf(stderr, "stream_probe: %s wrote %llu wrong elements\n", d.name.c_str(), bad);
      ++failures;
    }
  }
  NB_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  long long mib = 1024;
  char* rest = nullptr;
  if (argc == 2) mib = std::strtoll(argv[1], &rest, 10);
  if (argc > 2 || (argc == 2 && (*rest != '\0' || mib <= 0 || mib > (1LL << 20)))) {
    std::fprintf(stderr, "usage: stream_probe [MiB per buffer, a positive integer; 1024 by default]\n");
    return 2;
  }
  return nb::probes::run_on_device("stream_probe", [&] { return run(mib); });
}
