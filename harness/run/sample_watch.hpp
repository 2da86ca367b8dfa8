#pragma once
// The checks around one case's timed samples that keep its time honest, all outside the events:
// every output disturbed before each sample and compared after it with what the variant wrote
// after warm-up (timed_output_mismatch), the GPU's clock stamped around each sample's events and
// compared with them (event_timer_mismatch), and persisting L2 lines looked for after the warm-up
// and after the loop (persisting_l2). Each finding becomes a flag of the case with its note.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "harness/device/device_clock.hpp"
#include "harness/device/timed_output_check.hpp"
#include "harness/run/case_outcome.hpp"
#include "harness/run/problem_buffers.hpp"
#include "harness/timing/case_timer.hpp"

namespace nb {

// Flags persisting_l2 (with `when` in its note) and resets it when the variant left any set.
void flag_persisting_l2(CaseOutcome& outcome, cudaStream_t stream, const std::string& when);

// The output tensors of a problem's buffers, as the timed-output check sees them.
std::vector<TimedOutput> timed_outputs(const ProblemBuffers& buffers);

class SampleWatch {
 public:
  // `samples`: the most the loop takes (the clock's slots). Chooses the snapshot or the digest by
  // the free device memory (plan_output_check).
  SampleWatch(const ProblemBuffers& buffers, int samples, cudaStream_t stream);

  // After the warm-up: the persisting-L2 check, the snapshot, and the watch on `timer`.
  void start(CaseTimer& timer, CaseOutcome& outcome);
  // After the loop: reads the counts and stamps back (one wait) and flags what they show.
  void conclude(const CaseTimer& timer, CaseOutcome& outcome);

 private:
  cudaStream_t stream_;
  std::string plan_note_;
  std::unique_ptr<TimedOutputCheck> outputs_;
  DeviceClock clock_;
};

}  // namespace nb
