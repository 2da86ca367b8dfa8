#pragma once
// Times one variant on one problem: warm-up, then samples that each flush the L2 and time one
// launch with events on the variant's stream, and a device-synchronised wall-clock bracket that
// sees work the events cannot (other streams, deferred work). Around each sample, outside its
// events, the harness may watch the outputs (disturbed before, checked after) and stamp the GPU's
// own clock (just before the start event and just after the stop event).
#include <cuda_runtime.h>

#include <functional>

#include "harness/device/device_clock.hpp"
#include "harness/device/l2_flush.hpp"
#include "harness/device/timed_output_check.hpp"
#include "harness/timing/event_timer.hpp"

namespace nb {

struct SamplePlan {
  double min_time_s = 0.1;   // timed seconds per case (--min-time)
  int min_samples = 10;
  int max_samples = 1000;
  double max_case_s = 1.5;   // a very slow launch (a naive kernel) gets fewer samples, never under 3
  double warm_launch_ms = 50;  // a launch this long needs one warm-up only: its validation launched it already

  // How many samples, given one launch's estimated time.
  int samples_for(double launch_ms) const;
  // Warm-up launches before the samples: 3, or one for a launch of warm_launch_ms or more (the
  // timed-output check snapshots what the variant wrote on the timing inputs).
  int warm_ups_for(double launch_ms) const { return launch_ms >= warm_launch_ms ? 1 : 3; }
  // Back-to-back launches in the wall-clock bracket: about 20 ms of them, one at least (a launch
  // that long needs no company), 200 at most.
  int bracket_launches(double median_ms) const;
};

// What the device-synchronised bracket saw per launch: the wall time, and the part of it the host
// spent submitting (a launch of several tiny kernels is bound by submission, not by the GPU).
struct WallBracket {
  double wall_ms = 0;
  double submit_ms = 0;
};

// The wall bracket exceeds what the GPU's events and the host's submission explain, by more
// than overhead and noise.
bool escapes_stream(double event_median_ms, double wall_ms_per_launch, double submit_ms_per_launch);

// The GPU clock's median across each sample's events exceeds the events' median by more than the
// two stamp kernels and noise explain: the event times were not the GPU's.
bool event_timer_disagrees(double event_median_ms, double device_median_ms);

class CaseTimer {
 public:
  CaseTimer(std::function<void()> launch, L2Flusher& flusher, cudaStream_t stream);

  // Either may be null. Sample k: outputs->disturb(k), the flush, clock stamp 2k, the timed launch,
  // clock stamp 2k+1 and outputs->check(k) enqueued right behind the stop event (so that work a
  // variant defers past its launch onto the stream lands after the check).
  void watch(TimedOutputCheck* outputs, DeviceClock* clock);

  void warm_up(int launches);
  double sample_ms();  // flush (untimed), then one event-timed launch
  int samples_taken() const { return samples_; }
  // Per launch, over back-to-back launches between two cudaDeviceSynchronize calls. A bracket the
  // events explain (escapes_stream false against `event_median_ms`) ends it; one they do not is
  // repeated, up to `max_repeats` in all, and the best is kept, so that one host hiccup does not
  // look like hidden work while a slow kernel is not bracketed more often than it must be.
  WallBracket wall_bracket(int launches, double event_median_ms, int max_repeats = 3);

 private:
  std::function<void()> launch_;
  L2Flusher& flusher_;
  cudaStream_t stream_;
  EventTimer timer_;
  TimedOutputCheck* outputs_ = nullptr;
  DeviceClock* clock_ = nullptr;
  int samples_ = 0;
};

}  // namespace nb
