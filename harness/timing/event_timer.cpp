#include "harness/timing/event_timer.hpp"

#include "harness/cuda_check.hpp"

namespace nb {

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
  NB_CUDA_CHECK(cudaEventCreate(&start_));
  NB_CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
}

double EventTimer::time_ms(const std::function<void()>& work, const std::function<void()>& after_stop) {
  NB_CUDA_CHECK(cudaEventRecord(start_, stream_));
  work();
  NB_CUDA_CHECK(cudaEventRecord(stop_, stream_));
  if (after_stop) after_stop();
  NB_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  NB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

std::vector<double> EventTimer::sample_ms(const std::function<void()>& work, int warmups, int samples) {
  for (int i = 0; i < warmups; ++i) work();
  std::vector<double> ms;
  for (int i = 0; i < samples; ++i) ms.push_back(time_ms(work));
  return ms;
}

}  // namespace nb
