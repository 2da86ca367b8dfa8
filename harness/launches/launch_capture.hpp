#pragma once
// Records the kernels one call puts on the GPU, with CUPTI's activity API (CONCURRENT_KERNEL
// records: name, grid, block, cluster, registers, shared memory, start and end), enabled around
// that call alone. CUPTI attaches at the first capture and detaches at end_launch_capture(), so
// nothing of it stays in the process while cases are timed. Where CUPTI cannot be had (another
// CUPTI client holds it: Nsight Compute, Nsight Systems, compute-sanitizer; a CUPTI call fails; a
// build without CUPTI) the record says why and the case runs on untouched.
#include <cuda_runtime.h>

#include <functional>

#include "harness/launches/kernel_launches.hpp"

namespace nb {

// Synchronises the device, runs `launch` with kernel records enabled, synchronises again and
// returns its kernels in launch order (those on other streams than `stream` marked so), or
// CaseLaunches::unavailable with CUPTI's error. An exception `launch` throws, or a failed
// synchronisation (DeviceError), propagates after the records are disabled and dropped.
CaseLaunches capture_launches(const std::function<void()>& launch, cudaStream_t stream);

// Detaches CUPTI from the process if a capture attached it (a later capture attaches it again);
// a no-op otherwise. A CUPTI that failed stays failed: the reason is given to every later capture.
void end_launch_capture();

}  // namespace nb
