#pragma once
// After a problem's validation, before anything is timed: one more launch of each case that ran,
// untimed, with its kernels recorded by CUPTI (harness/launches/launch_capture.hpp) into
// CaseOutcome::launches: what a user would otherwise open Nsight Compute for (grid, block,
// cluster, registers, shared memory), for our kernels and the libraries' alike.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/run/case_outcome.hpp"
#include "harness/run/problem_buffers.hpp"
#include "harness/variant.hpp"

namespace nb {

// Why a run records no launches (the record each case that ran carries instead).
inline constexpr const char* kLaunchesOff = "not recorded (--no-launches)";
inline constexpr const char* kLaunchesNotInProfileMode =
    "not recorded in --profile mode, which leaves CUPTI to the profiler (Nsight Compute, Nsight Systems)";

// outcomes[i] belongs to variants[i]; cases that are not runnable are left alone. A CUPTI failure
// or a failed launch becomes the record's reason, never the case's error; a launch that leaves
// the CUDA context unusable throws DeviceError, as in the validation.
void record_launches(const Problem& problem, const std::vector<Variant*>& variants, std::vector<CaseOutcome>& outcomes,
                     const ProblemBuffers& buffers, cudaStream_t stream);

// Each runnable case's record: none taken, and why.
void mark_launches_not_recorded(std::vector<CaseOutcome>& outcomes, const std::string& why);

}  // namespace nb
