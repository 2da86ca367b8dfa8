// Does compute-sanitizer's racecheck model a barrier of part of a CTA? The team-slice pipeline
// (kernels/primitives/team_slices.cuh) hands values between warp 0 and warps 1-15 across
// __syncthreads while warps 1-15 also synchronise among themselves; with a named barrier for the
// latter, racecheck reported races on the handoffs across the __syncthreads. This probe is that
// pattern alone, in four modes of the data warps' own barrier:
//   block:  none (warps 1-15 read only their own warp's scratch, after __syncwarp)
//   named:  bar.sync 1, 480 among warps 1-15
//   arrive: bar.sync 1, 512 among warps 1-15, warp 0 adding its bar.arrive 1, 512 each round
//   mbar:   an mbarrier of 480 arrivals in shared memory, waited on by phase parity
// With a barrier, thread 32 reads another warp's scratch through it. Every mode hands a value from
// thread 32 to warp 0 and back across __syncthreads each round and checks every value received
// (exit 1 on a wrong one, 77 without a GPU). On the H100 (compute-sanitizer of CUDA 13.0) all four
// modes receive every value right; racecheck reports hazards on the __syncthreads handoffs in
// `named` and `arrive` mode and none in `block` and `mbar` mode: the named-barrier reports are
// the tool's, and the pipeline's data warps use an mbarrier (docs/sanitizers.md).
//   compute-sanitizer --tool racecheck build/release/tests/racecheck_probe named
#include <cuda_runtime.h>

#include <cstdio>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/primitives/mbarrier.cuh"
#include "tests/probes/probe_device.hpp"

namespace {

constexpr int kThreads = 512, kRounds = 64;

enum Mode { kBlock, kNamed, kArrive, kMbar };
constexpr const char* kModeNames[] = {"block", "named", "arrive", "mbar"};

template <Mode MODE>
__global__ void handoff(int* wrong) {
  __shared__ int to_warp0, to_data;
  __shared__ int scratch[kThreads / 32];
  __shared__ std::uint64_t data_bar;
  if constexpr (MODE == kMbar) {
    if (threadIdx.x == 0) nb::dev::mbarrier_init(&data_bar, kThreads - 32);
    __syncthreads();
  }
  for (int round = 0; round < kRounds; ++round) {
    if constexpr (MODE == kArrive)
      if (threadIdx.x < 32) asm volatile("bar.arrive 1, 512;\n" ::: "memory");
    if (threadIdx.x >= 32) {
      if ((threadIdx.x & 31) == 0) scratch[threadIdx.x / 32] = round;
      if constexpr (MODE == kNamed) asm volatile("bar.sync 1, 480;\n" ::: "memory");
      if constexpr (MODE == kArrive) asm volatile("bar.sync 1, 512;\n" ::: "memory");
      if constexpr (MODE == kMbar) {
        nb::dev::mbarrier_arrive(&data_bar);
        nb::dev::mbarrier_wait(&data_bar, round & 1);
      }
      __syncwarp();
      const int source = MODE == kBlock ? 1 : kThreads / 32 - 1;  // thread 32's warp, or the last data warp
      if (threadIdx.x == 32) to_warp0 = round + scratch[source];
    } else if (threadIdx.x == 0) {
      to_data = 3 * round;
    }
    __syncthreads();  // the handoffs
    if (threadIdx.x < 32) {
      if (to_warp0 != 2 * round) atomicAdd(wrong, 1);
    } else if (to_data != 3 * round) {
      atomicAdd(wrong, 1);
    }
    __syncthreads();  // read before the next round writes
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int mode = nb::probes::mode_of("racecheck_probe", argc, argv, kModeNames);
  if (mode < 0) return 2;
  return nb::probes::run_on_device("racecheck_probe", [&] {
    const nb::DeviceBuffer wrong(sizeof(int));
    NB_CUDA_CHECK(cudaMemset(wrong.get(), 0, sizeof(int)));
    switch (mode) {
      case kBlock: handoff<kBlock><<<1, kThreads>>>(wrong.as<int>()); break;
      case kNamed: handoff<kNamed><<<1, kThreads>>>(wrong.as<int>()); break;
      case kArrive: handoff<kArrive><<<1, kThreads>>>(wrong.as<int>()); break;
      default: handoff<kMbar><<<1, kThreads>>>(wrong.as<int>()); break;
    }
    NB_CHECK_LAUNCH();
    int host = -1;
    NB_CUDA_CHECK(cudaMemcpy(&host, wrong.get(), sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("racecheck_probe %s: %d wrong values in %d rounds\n", argv[1], host, kRounds);
    return host == 0 ? 0 : 1;
  });
}
