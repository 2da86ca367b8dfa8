#pragma once
// The check after the timed loop: fresh inputs (a seed no trial used) in the timing buffers,
// outputs poisoned, one more launch, judged against the float64 reference like a trial. A
// variant that stops working once warmed up, or replays a result cached for buffers it has seen,
// fails it even though every validation trial passed.
#include <cuda_runtime.h>

#include <cstdint>

#include "harness/run/problem_buffers.hpp"
#include "harness/run/run_case.hpp"
#include "harness/validation/validation_result.hpp"

namespace nb {

DistributionVerdict recheck_after_timing(const RunCase& c, const ProblemBuffers& buffers, cudaStream_t stream,
                                         std::uint64_t seed);

}  // namespace nb
