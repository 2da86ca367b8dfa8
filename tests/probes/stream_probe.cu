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
//   read / write        the sum of x (read only) and a fill of y (write only), for the one-way rates
// Prints each design's median of 15 timed passes (CUDA events, after 3 warm-up passes) in ms and
// GB/s (bytes read + written) and its ratio to memcpy's. Exit 1 when an output is wrong, 77
// without a GPU; 2 on a bad argument.
//   build/release/tests/stream_probe 1024
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/shared_address.cuh"
#include "tests/probes/probe_device.hpp"

namespace {

#define PROBE_CHECK(call)                                                                             \
  do {                                                                                                \
    const cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "stream_probe: %s at %s:%d: %s\n", #call, __FILE__, __LINE__,              \
                   cudaGetErrorString(e_));                                                           \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

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

// --- TMA bulk copies (sm_90) ---

__device__ __forceinline__ void bulk_load(void* smem, const void* gmem, std::uint32_t bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   nb::dev::shared_address(smem)),
               "l"(gmem), "r"(bytes), "r"(nb::dev::shared_address(bar))
               : "memory");
}
__device__ __forceinline__ void bulk_store(void* gmem, const void* smem, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(gmem),
               "r"(nb::dev::shared_address(smem)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// Waits until at most N bulk stores still read shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

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
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

// --- one-way rates ---

template <int T, int U>
__global__ void __launch_bounds__(T) read_sum(const float4* x, long long n4, float* sink) {
  const long long start = (long long)blockIdx.x * T * U + threadIdx.x;
  float s = 0.0f;
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (start + u * T < n4) {
      const float4 v = __ldcs(x + start + u * T);
      s += v.x + v.y + v.z + v.w;
    }
  if (s == -1.0f) *sink = s;  // x holds no -1 sums: kept only so the loads are not dead
}

template <int T, int U>
__global__ void __launch_bounds__(T) write_fill(float4* y, long long n4) {
  const long long start = (long long)blockIdx.x * T * U + threadIdx.x;
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (start + u * T < n4) {
      const long long i = start + u * T;
      __stcs(y + i, make_float4(float(i & 1023), 0.0f, 1.0f, 2.0f));
    }
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
  double bytes_per_pass;  // read + written
  float add;              // what y must hold over x; NAN: no output to check
  std::function<void(cudaStream_t)> run;
};

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
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
  if (!nb::probes::has_device("stream_probe")) return nb::probes::kSkip;
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) {
    std::fprintf(stderr, "stream_probe: the bulk-copy designs need sm_90 (this GPU is sm_%d%d)\n", prop.major, prop.minor);
    return nb::probes::kSkip;
  }
  const long long bytes = mib << 20, n = bytes / 4, n4 = n / 4;
  float *x = nullptr, *y = nullptr, *sink = nullptr;
  unsigned long long* wrong = nullptr;
  PROBE_CHECK(cudaMalloc(&x, bytes));
  PROBE_CHECK(cudaMalloc(&y, bytes));
  PROBE_CHECK(cudaMalloc(&sink, sizeof(float)));
  PROBE_CHECK(cudaMalloc(&wrong, sizeof(unsigned long long)));
  cudaStream_t stream;
  PROBE_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  fill_x<<<prop.multiProcessorCount * 8, 256, 0, stream>>>(x, n);
  PROBE_CHECK(cudaGetLastError());

  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  const double both = 2.0 * double(bytes);
  std::vector<Design> designs;
  designs.push_back({"memcpy", both, 0.0f, [&](cudaStream_t s) {
                       PROBE_CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s));
                     }});
  auto blocks = [&](int chunk) { return unsigned((n4 + chunk - 1) / chunk); };
#define PROBE_BLOCK(T, U, H, label)                                                                     \
  designs.push_back({"block " #T " x " #U label, both, 1.0f, [&](cudaStream_t s) {                  \
                       block_chunks<T, U, H><<<blocks(T * U), T, 0, s>>>(x4, y4, n4);                   \
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
#define PROBE_PERSISTENT(T, U, H, label)                                                                \
  designs.push_back({"persistent " #T " x " #U label, both, 1.0f, [&](cudaStream_t s) {             \
                       persistent_chunks<T, U, H><<<resident / T, T, 0, s>>>(x4, y4, n4);              \
                     }})
  PROBE_PERSISTENT(512, 4, kPlain, "");
  PROBE_PERSISTENT(256, 8, kEvictFirst, " cs");
#undef PROBE_PERSISTENT
  const unsigned sms = unsigned(prop.multiProcessorCount);
#define PROBE_BULK(S, KB, ADD, label)                                                                  \
  do {                                                                                                 \
    PROBE_CHECK(cudaFuncSetAttribute(bulk_tiles<S, (KB) * 1024, ADD>,                                  \
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (S) * (KB) * 1024)); \
    designs.push_back({"bulk " #S " x " #KB " KB " label, both, (ADD) ? 1.0f : 0.0f, [&](cudaStream_t s) { \
                         bulk_tiles<S, (KB) * 1024, ADD><<<sms, 256, (S) * (KB) * 1024, s>>>(           \
                             x, y, bytes / ((KB) * 1024));                                             \
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
  designs.push_back({"read (sum of x)", double(bytes), NAN, [&](cudaStream_t s) {
                       read_sum<256, 8><<<blocks(256 * 8), 256, 0, s>>>(x4, n4, sink);
                     }});
  designs.push_back({"write (fill y)", double(bytes), NAN, [&](cudaStream_t s) {
                       write_fill<256, 8><<<blocks(256 * 8), 256, 0, s>>>(y4, n4);
                     }});

  cudaEvent_t begin, end;
  PROBE_CHECK(cudaEventCreate(&begin));
  PROBE_CHECK(cudaEventCreate(&end));
  std::printf("%s, %d SMs; %lld MiB per buffer; median of 15 passes\n", prop.name, prop.multiProcessorCount, mib);
  std::printf("%-26s %10s %9s %10s\n", "design", "ms", "GB/s", "/ memcpy");
  double memcpy_gbps = 0.0;
  int failures = 0;
  for (const Design& d : designs) {
    PROBE_CHECK(cudaMemsetAsync(y, 0xff, bytes, stream));  // NaN: a design that skips an element fails
    std::vector<float> ms;
    for (int pass = 0; pass < 18; ++pass) {
      PROBE_CHECK(cudaEventRecord(begin, stream));
      d.run(stream);
      PROBE_CHECK(cudaEventRecord(end, stream));
      PROBE_CHECK(cudaGetLastError());
      PROBE_CHECK(cudaEventSynchronize(end));
      float t = 0.0f;
      PROBE_CHECK(cudaEventElapsedTime(&t, begin, end));
      if (pass >= 3) ms.push_back(t);
    }
    const double med = median(ms), gbps = d.bytes_per_pass / (med * 1e-3) / 1e9;
    if (d.name == "memcpy") memcpy_gbps = gbps;
    unsigned long long bad = 0;
    if (!std::isnan(d.add)) {
      PROBE_CHECK(cudaMemsetAsync(wrong, 0, sizeof(bad), stream));
      count_wrong<<<prop.multiProcessorCount * 8, 256, 0, stream>>>(x, y, n, d.add, wrong);
      PROBE_CHECK(cudaMemcpyAsync(&bad, wrong, sizeof(bad), cudaMemcpyDeviceToHost, stream));
      PROBE_CHECK(cudaStreamSynchronize(stream));
    }
    std::printf("%-26s %10.4f %9.0f %10.3f%s\n", d.name.c_str(), med, gbps, gbps / memcpy_gbps,
                bad ? "  WRONG OUTPUT" : "");
    if (bad) {
      std::fprintf(stderr, "stream_probe: %s wrote %llu wrong elements\n", d.name.c_str(), bad);
      ++failures;
    }
  }
  return failures ? 1 : 0;
}
