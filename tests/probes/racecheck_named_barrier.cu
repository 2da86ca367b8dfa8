// Does compute-sanitizer's racecheck model a named barrier of part of a CTA? The team-slice
// pipeline (kernels/primitives/team_slices.cuh) hands values between warp 0 and warps 1-15 across
// __syncthreads; one of its forms, 9% faster, also synchronised warps 1-15 among themselves with
// `bar.sync 1, 480`, and racecheck then reported races on the handoffs across the __syncthreads
// (docs/notes/batchnorm-train-perf.md). This probe is that pattern alone, in two modes:
//   block: warps 1-15 sync among themselves with __syncwarp only (no named barrier)
//   named: the same plus a `bar.sync 1, 480` among warps 1-15 before each handoff
// Both hand a value from thread 32 to warp 0 and back across __syncthreads each round, and check
// every value received (exit 1 on a wrong one, 77 without a GPU). Under racecheck a report in
// `named` mode and none in `block` mode is the tool's, since the two differ only by a barrier
// that adds ordering:
//   compute-sanitizer --tool racecheck build/release/tests/racecheck_probe named
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

namespace {

constexpr int kThreads = 512, kRounds = 64;

template <bool NAMED>
__global__ void handoff(int* wrong) {
  __shared__ int to_warp0, to_data;
  __shared__ int scratch[kThreads / 32];
  for (int round = 0; round < kRounds; ++round) {
    if (threadIdx.x >= 32) {
      if ((threadIdx.x & 31) == 0) scratch[threadIdx.x / 32] = round;
      if constexpr (NAMED) asm volatile("bar.sync 1, 480;\n" ::: "memory");
      __syncwarp();
      if (threadIdx.x == 32) to_warp0 = round + scratch[threadIdx.x / 32];
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
  if (argc != 2 || (std::strcmp(argv[1], "named") != 0 && std::strcmp(argv[1], "block") != 0)) {
    std::fprintf(stderr, "usage: racecheck_probe named|block\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "racecheck_probe: no CUDA device\n");
    return 77;
  }
  int* wrong = nullptr;
  if (cudaMalloc(&wrong, sizeof(int)) != cudaSuccess || cudaMemset(wrong, 0, sizeof(int)) != cudaSuccess) return 1;
  if (std::strcmp(argv[1], "named") == 0)
    handoff<true><<<1, kThreads>>>(wrong);
  else
    handoff<false><<<1, kThreads>>>(wrong);
  int host = -1;
  const cudaError_t e = cudaMemcpy(&host, wrong, sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "racecheck_probe: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("racecheck_probe %s: %d wrong values in %d rounds\n", argv[1], host, kRounds);
  return host == 0 ? 0 : 1;
}
