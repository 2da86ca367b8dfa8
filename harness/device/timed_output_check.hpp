#pragma once
// Checks the output of every timed launch, outside the timed region: before each sample every
// output is disturbed (the poison of the sample's parity, harness/stored_value.hpp), and after the
// sample's stop event a kernel compares it with what the variant wrote after warm-up. A launch
// that skips its work (a result cached by pointer, a sample of the inputs unchanged) leaves the
// disturbance; one that writes something else differs. Counts accumulate on the device and come
// back once, after the loop.
//
// The comparison is element by element with a copy of the outputs (a snapshot) where the device
// memory allows it, else with a digest of each output (two random projections, within the bound
// times the output's norm, and the sum of magnitudes, within the bound times itself): weaker on a
// few wrong elements, as strong on skipped work.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/device_buffer.hpp"
#include "harness/dtype.hpp"

namespace nb {

// One output tensor of the timing buffers.
struct TimedOutput {
  std::string name;
  void* data = nullptr;
  std::int64_t elements = 0;
  std::size_t poison_bytes = 0;  // what the disturbance fills: the storage rounded up to words
  DType storage = DType::f32;
};

// What the timed samples left in one output.
struct TimedOutputCount {
  std::string name;
  std::uint64_t disturbed = 0;  // elements (snapshot) or samples' elements (digest) still disturbed
  std::uint64_t differing = 0;  // elements beyond the bound (snapshot), or samples whose digest differed
  int first_sample = -1;        // the first sample with either, -1 when none
};

struct TimedOutputReport {
  bool snapshot = true;
  std::vector<TimedOutputCount> outputs;

  bool clean() const;
  // "y: 4096 elements still held the disturbance after a timed launch, 0 differed from the output
  // after warm-up (first in sample 0)", one clause per output that failed; "" when clean.
  std::string describe() const;
};

class TimedOutputCheck {
 public:
  // `snapshot` false: digests instead of copies (the copies do not fit).
  TimedOutputCheck(std::vector<TimedOutput> outputs, bool snapshot, cudaStream_t stream);

  void take_snapshot();     // after warm-up: the copies (or digests) and their scale
  void disturb(int sample);  // before the sample's flush
  void check(int sample);    // right after the sample's stop event is recorded
  TimedOutputReport finish();  // waits for the stream; one copy back

 private:
  std::vector<TimedOutput> outputs_;
  bool snapshot_;
  cudaStream_t stream_;
  std::vector<DeviceBuffer> copies_;
  DeviceBuffer state_;  // one OutputState (timed_output_check.cu) per output
};

// Bytes the snapshot needs: the storage of every output.
std::size_t snapshot_bytes(const std::vector<TimedOutput>& outputs);

}  // namespace nb
