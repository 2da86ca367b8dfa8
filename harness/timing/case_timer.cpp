#include "harness/timing/case_timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "harness/cuda_check.hpp"

namespace nb {

int SamplePlan::samples_for(double launch_ms) const {
  const double wanted = launch_ms > 0 ? min_time_s * 1e3 / launch_ms : max_samples;
  int samples = static_cast<int>(std::clamp(std::ceil(wanted), double(min_samples), double(max_samples)));
  if (launch_ms > 0 && samples * launch_ms > max_case_s * 1e3)
    samples = std::max(3, static_cast<int>(max_case_s * 1e3 / launch_ms));
  return samples;
}

int SamplePlan::bracket_launches(double median_ms) const {
  return static_cast<int>(std::clamp(20.0 / std::max(median_ms, 1e-3), 1.0, 200.0));
}

CaseTimer::CaseTimer(std::function<void()> launch, L2Flusher& flusher, cudaStream_t stream)
    : launch_(std::move(launch)), flusher_(flusher), stream_(stream), timer_(stream) {}

void CaseTimer::warm_up(int launches) {
  for (int i = 0; i < launches; ++i) launch_();
  NB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CaseTimer::watch(TimedOutputCheck* outputs, DeviceClock* clock) {
  outputs_ = outputs;
  clock_ = clock;
}

double CaseTimer::sample_ms() {
  const int k = samples_++;
  if (outputs_) outputs_->disturb(k);
  flusher_.flush(stream_);
  if (clock_) clock_->stamp(2 * k, stream_);
  return timer_.time_ms(launch_, [&] {
    if (clock_) clock_->stamp(2 * k + 1, stream_);
    if (outputs_) outputs_->check(k);
  });
}

bool escapes_stream(double event_median_ms, double wall_ms_per_launch, double submit_ms_per_launch) {
  // A launch costs the larger of its GPU time and its host submission (several tiny kernels are
  // bound by the host); 20 us and 50% cover overlap and clock noise, while work hidden on
  // another stream shows whole in the wall time.
  return wall_ms_per_launch > 1.5 * std::max(event_median_ms, submit_ms_per_launch) + 0.020;
}

bool event_timer_disagrees(double event_median_ms, double device_median_ms) {
  // Both clocks are the GPU's; the stamps add two one-thread kernels and their gaps (a few us) to
  // the events' interval, never less: 10% and 20 us cover that and the timer's resolution.
  return device_median_ms > 1.1 * event_median_ms + 0.020;
}

WallBracket CaseTimer::wall_bracket(int launches, double event_median_ms, int max_repeats) {
  using clock = std::chrono::steady_clock;
  WallBracket best;
  for (int r = 0; r < max_repeats; ++r) {
    NB_CUDA_CHECK(cudaDeviceSynchronize());
    const auto start = clock::now();
    for (int i = 0; i < launches; ++i) launch_();
    const auto submitted = clock::now();
    NB_CUDA_CHECK(cudaDeviceSynchronize());
    const auto stop = clock::now();
    const WallBracket b{std::chrono::duration<double, std::milli>(stop - start).count() / launches,
                        std::chrono::duration<double, std::milli>(submitted - start).count() / launches};
    if (r == 0 || b.wall_ms < best.wall_ms) best = b;
    if (!escapes_stream(event_median_ms, best.wall_ms, best.submit_ms)) break;
  }
  return best;
}

}  // namespace nb
