#pragma once
// The GPU's own nanosecond clock (%globaltimer), stamped into device memory by a one-thread
// kernel on a stream. The timing loop brackets each sample's events with two stamps, outside
// them, so that the event times can be checked against a clock that cudaEventElapsedTime does not
// report: a process that patches the event timer (a candidate's library in its own worker) still
// shows the GPU's time here.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "harness/device_buffer.hpp"

namespace nb {

class DeviceClock {
 public:
  explicit DeviceClock(int slots);

  // Enqueues a stamp into `slot`; a slot past the end is ignored.
  void stamp(int slot, cudaStream_t stream);
  // The first `count` slots (waits for the stream), in nanoseconds.
  std::vector<std::uint64_t> read(int count, cudaStream_t stream) const;

 private:
  int slots_;
  DeviceBuffer stamps_;
};

// Per pair of slots (2k, 2k+1), the milliseconds between them.
std::vector<double> stamp_intervals_ms(const std::vector<std::uint64_t>& stamps);

}  // namespace nb
