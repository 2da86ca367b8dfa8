// Does the Hopper GEMM's ping-pong grid hide a tile's epilogue under the other warpgroup's MMAs?
// Times the persistent grid (both consumer warpgroups on each 128 x 256 tile: the tensor cores
// idle through its epilogue; wgmma_persistent.cuh) against the ping-pong grid (each warpgroup on
// its own 64 x 256 tiles in turn; wgmma_pingpong.cuh), alone and in CTA pairs that multicast B,
// all with the store epilogue after a wait of D SM cycles a tile: the stand-in for a heavier
// epilogue (BatchNorm's column statistics took 14 thousand cycles a tile on the H100,
// docs/notes/hopper-gemm.md). A thread holds 128 accumulators in every grid, so an epilogue's work
// a thread, and D, are the same in all. Checks that the grids write the same C, bit for bit (each
// element's MMAs are the same, in the same order), at every D.
//   build/release/tests/epilogue_overlap_probe check   small and odd shapes, outputs only (the CTest)
//   build/release/tests/epilogue_overlap_probe time    16384x4096x4096 and 1024x8192x8192 in bf16
//       and tf32, D = 0, 7000, 14000 and 28000: the median of 15 launches of each grid, in turn
//       (after 3 warm-ups), in ms, and each ping-pong form's time over the persistent grid's
// Exit 1 when the grids' outputs differ or a CUDA call fails; 77 without an sm_90 GPU; 2 on a bad
// argument.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/timing/event_timer.hpp"
#include "harness/timing/statistics.hpp"
#include "kernels/gemm/sm90/fragment_store.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_persistent.cuh"
#include "kernels/gemm/sm90/wgmma_pingpong.cuh"
#include "tests/probes/probe_device.hpp"

namespace {

using namespace nb::gemm;
using namespace nb::gemm::sm90;

// The store epilogue after `cycles` of SM clock spent waiting.
struct DelayedStore {
  StoreFragment store;
  long long cycles;

  static constexpr int kScratchFloats = 0;
  static constexpr bool kOneWarpgroup = true;
  using Early = StoreFragment::Early;

  __device__ Early load_early(const FragmentTile& t) const { return store.load_early(t); }
  __device__ void operator()(float (&acc)[128], const FragmentTile& t, const Early& early) const {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
    store(acc, t, early);
  }
};

// Values in [-1, 1) from a hash of the index: the same operands in every run.
template <class T>
__global__ void fill_kernel(T* p, long long count, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = T(float(h & 0xffffu) / 32768.0f - 1.0f);
  }
}

struct Shape {
  int m, n, k;
};

template <class Inputs>
const char* precision_name() {
  return sizeof(typename Inputs::Element) == 2 ? "bf16" : "tf32";
}

// C of `launch` into `c` (poisoned with NaN first), copied to `host`.
void run_into(const nb::DeviceBuffer& c, long long count, std::vector<float>& host, const std::function<void()>& launch,
              cudaStream_t stream) {
  NB_CUDA_CHECK(cudaMemsetAsync(c.as<float>(), 0xff, count * sizeof(float), stream));
  launch();
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
  NB_CUDA_CHECK(cudaMemcpy(host.data(), c.as<float>(), count * sizeof(float), cudaMemcpyDeviceToHost));
}

// Runs the three grids at each delay on one shape; with `timed`, prints a line per delay. Returns
// 1 when their outputs differ.
template <class Inputs>
int run_shape(Shape s, const std::vector<long long>& delays, bool timed, cudaStream_t stream) {
  using E = typename Inputs::Element;
  const long long a_count = (long long)s.m * s.k, b_count = (long long)s.n * s.k, c_count = (long long)s.m * s.n;
  const nb::DeviceBuffer a(a_count * sizeof(E)), b(b_count * sizeof(E));
  const nb::DeviceBuffer c(c_count * sizeof(float));
  fill_kernel<E><<<1024, 256, 0, stream>>>(a.as<E>(), a_count, 1u);
  fill_kernel<E><<<1024, 256, 0, stream>>>(b.as<E>(), b_count, 2u);
  NB_CHECK_LAUNCH();
  const OperandsOf<E> op{a.as<const E>(), b.as<const E>(), s.m, s.n, s.k};
  if (const std::string refusal = wgmma_operands_refusal(op); !refusal.empty()) {
    std::fprintf(stderr, "%dx%dx%d %s: %s\n", s.m, s.n, s.k, precision_name<Inputs>(), refusal.c_str());
    return 1;
  }
  std::vector<float> expected(c_count), got(c_count);
  for (const long long cycles : delays) {
    const DelayedStore store{StoreFragment{StoreEpilogue{c.as<float>(), s.n, nullptr}}, cycles};
    const std::function<void()> persistent = [&] {
      launch_wgmma_persistent<Inputs, DelayedStore, MmaOverlap::one_group, TileOrder::grouped>(op, store, stream);
    };
    const std::function<void()> pingpong[] = {
        [&] { launch_wgmma_pingpong<Inputs, DelayedStore, MmaOverlap::one_group, TileOrder::grouped>(op, store, stream); },
        [&] {
          launch_wgmma_pingpong<Inputs, DelayedStore, MmaOverlap::one_group, TileOrder::grouped, true>(op, store, stream);
        }};
    const char* const kForms[] = {"ping-pong", "ping-pong pairs"};
    run_into(c, c_count, expected, persistent, stream);
    for (int f = 0; f < 2; ++f) {
      run_into(c, c_count, got, pingpong[f], stream);
      if (std::memcmp(expected.data(), got.data(), c_count * sizeof(float)) == 0) continue;
      long long first = 0;
      while (std::memcmp(&expected[first], &got[first], sizeof(float)) == 0) ++first;
      std::fprintf(stderr, "%dx%dx%d %s, D = %lld: %s's C differs first at (%lld, %lld): %.9g against %.9g\n", s.m,
                   s.n, s.k, precision_name<Inputs>(), cycles, kForms[f], first / s.n, first % s.n, expected[first],
                   got[first]);
      return 1;
    }
    if (!timed) continue;
    nb::EventTimer timer(stream);
    constexpr int kWarmUps = 3, kSamples = 15;
    for (int i = 0; i < kWarmUps; ++i) persistent(), pingpong[0](), pingpong[1]();
    std::vector<double> ms[3];
    for (int i = 0; i < kSamples; ++i) {
      ms[0].push_back(timer.time_ms(persistent));
      ms[1].push_back(timer.time_ms(pingpong[0]));
      ms[2].push_back(timer.time_ms(pingpong[1]));
    }
    const double p = nb::summarize(ms[0]).median, q = nb::summarize(ms[1]).median, r = nb::summarize(ms[2]).median;
    std::printf("%5dx%dx%d %s  D %6lld  persistent %8.4f ms  ping-pong %8.4f (%.3f)  pairs %8.4f (%.3f)\n", s.m, s.n,
                s.k, precision_name<Inputs>(), cycles, p, q, q / p, r, r / p);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  static const char* const kModes[] = {"check", "time"};
  const int mode = nb::probes::mode_of("epilogue_overlap_probe", argc, argv, kModes);
  if (mode < 0) return 2;
  return nb::probes::run_on_device("epilogue_overlap_probe", [&] {
    if (const std::string refusal = wgmma_device_refusal(); !refusal.empty()) {
      std::fprintf(stderr, "epilogue_overlap_probe: %s\n", refusal.c_str());
      return nb::probes::kSkip;
    }
    cudaStream_t stream = nullptr;
    NB_CUDA_CHECK(cudaStreamCreate(&stream));
    int failed = 0;
    if (mode == 0) {
      // Partial tiles in M, N and K; more 64-row tiles than SMs (each warpgroup several); one tile;
      // odd counts of M tiles (a pair's second tile past M).
      const Shape shapes[] = {{1, 1, 8}, {300, 600, 264}, {4224, 2304, 72}, {2100, 520, 40}};
      const std::vector<long long> delays = {0, 3000};
      for (const Shape& s : shapes) {
        failed |= run_shape<Tf32Inputs>(s, delays, false, stream);
        failed |= run_shape<Bf16Inputs>(s, delays, false, stream);
      }
      if (!failed) std::printf("epilogue_overlap_probe: the three grids wrote the same C on every shape and delay\n");
    } else {
      const Shape shapes[] = {{16384, 4096, 4096}, {1024, 8192, 8192}};
      const std::vector<long long> delays = {0, 7000, 14000, 28000};
      for (const Shape& s : shapes) {
        failed |= run_shape<Bf16Inputs>(s, delays, true, stream);
        failed |= run_shape<Tf32Inputs>(s, delays, true, stream);
      }
    }
    NB_CUDA_CHECK(cudaStreamDestroy(stream));
    return failed;
  });
}
