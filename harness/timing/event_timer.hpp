#pragma once
// Times one piece of stream work with a pair of CUDA events recorded around it on that stream.
#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace nb {

class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream);
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // Records start, runs `work` (which enqueues on the stream), records stop, runs `after_stop` (work
  // enqueued behind the stop event, outside the timed interval), waits for the stop event, returns ms.
  double time_ms(const std::function<void()>& work, const std::function<void()>& after_stop = {});

  // Runs `work` `warmups` times untimed, then times it `samples` times (the ceilings' loop).
  std::vector<double> sample_ms(const std::function<void()>& work, int warmups, int samples);

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace nb
