// Does compute-sanitizer's racecheck follow shared memory written by TMA bulk copies and ordered
// by mbarriers? The row backward's `fused_tma` feeds its stages so: a producer thread's
// cp.async.bulk completes its bytes on a stage's `full` mbarrier, the consumer warps read the stage
// with ordinary loads and arrive on its `empty` mbarrier, and the producer waits on `empty` before
// it copies the next row into that stage. This probe is that pattern alone, in four modes:
//   once:   every round has a stage of its own (no stage is written twice): the copy, then reads
//   ring:   three stages in turn, as fused_tma (each stage written again after its reads)
//   fenced: ring, each consumer warp's fence.proxy.async.shared::cta after its reads, before it
//           arrives on `empty`
//   block:  three stages in turn, every round ended by __syncthreads (no `empty`): a stage's next
//           copy is issued after the CTA barrier that follows its reads
// The consumers check every value read (exit 1 on a wrong one, 77 without a GPU or below sm_90).
// On the H100 (all four modes) and the H200 (once, ring, fenced), CUDA 13.0's compute-sanitizer,
// 2026-11-27: every mode read every value right; racecheck reported the stage reads against the
// bulk copies in `ring` and `fenced` mode (one error, 3968 hazards at each copy site) and nothing
// in `once` and `block` mode. It follows a copy's completion on its mbarrier and a CTA barrier
// before a copy, not the `empty` mbarrier that orders a stage's reads before its next copy, fence
// or none. Those reports were not the tool's alone: fused_tma, when it freed a stage right after
// issuing its loads (as `ring` does), wrote a wrong dx in one timed launch of ~170 on the H100; it
// now frees a stage after values computed from every load (docs/sanitizers.md).
//   compute-sanitizer --tool racecheck build/release/tests/racecheck_bulk_probe ring
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/primitives/bulk_copy.cuh"
#include "kernels/primitives/mbarrier.cuh"
#include "tests/probes/probe_device.hpp"

namespace {

constexpr int kConsumers = 256, kRounds = 8, kRingStages = 3;  // once: 8 stages of 4 KB
constexpr int kStageInts = kConsumers * 4;  // a 16-byte pack a consumer thread
constexpr std::uint32_t kStageBytes = kStageInts * sizeof(int);

enum Mode { kOnce, kRing, kFenced, kBlock };
constexpr const char* kModeNames[] = {"once", "ring", "fenced", "block"};

// Round r copies source[r] (kStageInts values r * kStageInts + i) into stage r % stages.
template <Mode MODE>
__global__ void __launch_bounds__(kConsumers + 32) bulk_ring(const int* __restrict__ source, int* wrong) {
  constexpr int kStages = MODE == kOnce ? kRounds : kRingStages;
  __shared__ alignas(128) int4 stages[kStages][kConsumers];
  __shared__ std::uint64_t full[kStages], empty[kStages];
  const int tid = int(threadIdx.x);
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      nb::dev::mbarrier_init(&full[s], 1);
      nb::dev::mbarrier_init(&empty[s], kConsumers / 32);
    }
    nb::dev::fence_barrier_init();
  }
  __syncthreads();
  const auto check = [&](int r, int s) {
    const int4 got = stages[s][tid];
    const int first = r * kStageInts + 4 * tid;
    if (got.x != first || got.y != first + 1 || got.z != first + 2 || got.w != first + 3) atomicAdd(wrong, 1);
  };
  if constexpr (MODE == kBlock) {
    for (int r = 0; r < kRounds; ++r) {
      const int s = r % kStages;
      if (tid == kConsumers) {
        nb::dev::mbarrier_arrive_expect_bytes(&full[s], kStageBytes);
        nb::dev::bulk_load(stages[s], source + std::size_t(r) * kStageInts, kStageBytes, &full[s]);
      }
      if (tid < kConsumers) {
        nb::dev::mbarrier_wait(&full[s], unsigned((r / kStages) & 1));
        check(r, s);
      }
      __syncthreads();
    }
    return;
  }
  if (tid >= kConsumers) {
    if (tid == kConsumers) {
      for (int r = 0; r < kRounds; ++r) {
        const int s = r % kStages;
        if (r >= kStages) nb::dev::mbarrier_wait(&empty[s], unsigned((r / kStages - 1) & 1));
        nb::dev::mbarrier_arrive_expect_bytes(&full[s], kStageBytes);
        nb::dev::bulk_load(stages[s], source + std::size_t(r) * kStageInts, kStageBytes, &full[s]);
      }
    }
    __syncwarp();
    return;
  }
  for (int r = 0; r < kRounds; ++r) {
    const int s = r % kStages;
    nb::dev::mbarrier_wait(&full[s], unsigned((r / kStages) & 1));
    check(r, s);
    if constexpr (MODE == kFenced) asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncwarp();
    if ((tid & 31) == 0) nb::dev::mbarrier_arrive(&empty[s]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int mode = nb::probes::mode_of("racecheck_bulk_probe", argc, argv, kModeNames);
  if (mode < 0) return 2;
  return nb::probes::run_on_device("racecheck_bulk_probe", [&] {
    cudaDeviceProp prop{};
    NB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major < 9) {
      std::fprintf(stderr, "racecheck_bulk_probe: bulk copies need sm_90 (this GPU is sm_%d%d)\n", prop.major,
                   prop.minor);
      return nb::probes::kSkip;
    }
    std::vector<int> values(std::size_t(kRounds) * kStageInts);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = int(i);
    const nb::DeviceBuffer source(values.size() * sizeof(int)), wrong(sizeof(int));
    NB_CUDA_CHECK(cudaMemcpy(source.get(), values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemset(wrong.get(), 0, sizeof(int)));
    switch (mode) {
      case kOnce: bulk_ring<kOnce><<<1, kConsumers + 32>>>(source.as<int>(), wrong.as<int>()); break;
      case kRing: bulk_ring<kRing><<<1, kConsumers + 32>>>(source.as<int>(), wrong.as<int>()); break;
      case kFenced: bulk_ring<kFenced><<<1, kConsumers + 32>>>(source.as<int>(), wrong.as<int>()); break;
      default: bulk_ring<kBlock><<<1, kConsumers + 32>>>(source.as<int>(), wrong.as<int>()); break;
    }
    NB_CHECK_LAUNCH();
    int host = -1;
    NB_CUDA_CHECK(cudaMemcpy(&host, wrong.get(), sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("racecheck_bulk_probe %s: %d wrong packs in %d rounds of %d\n", argv[1], host, kRounds, kConsumers);
    return host == 0 ? 0 : 1;
  });
}
