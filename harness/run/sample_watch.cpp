#include "harness/run/sample_watch.hpp"

#include <cstdio>

#include "harness/cuda_check.hpp"
#include "harness/device/persisting_l2.hpp"
#include "harness/run/memory_footprint.hpp"
#include "harness/timing/statistics.hpp"

namespace nb {

void flag_persisting_l2(CaseOutcome& outcome, cudaStream_t stream, const std::string& when) {
  const std::string found = find_and_reset_persisting_l2(stream);
  if (!found.empty()) outcome.add_flag(kFlagPersistingL2, found + " " + when + " (reset before anything was timed)");
}

std::vector<TimedOutput> timed_outputs(const ProblemBuffers& b) {
  std::vector<TimedOutput> outputs;
  for (std::size_t i = 0; i < b.decls.size(); ++i)
    if (b.decls[i].role == TensorRole::output)
      outputs.push_back({b.decls[i].name, b.tensors.buffers[i].get(), b.decls[i].elements, b.hashed_bytes(i),
                         b.decls[i].dtype});
  return outputs;
}

namespace {

OutputCheckPlan plan_for(const std::vector<TimedOutput>& outputs) {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return {false, "the free device memory is unknown: compared by digest"};
  }
  return plan_output_check(static_cast<double>(snapshot_bytes(outputs)), static_cast<double>(free_bytes));
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", ms);
  return text;
}

}  // namespace

SampleWatch::SampleWatch(const ProblemBuffers& buffers, int samples, cudaStream_t stream)
    : stream_(stream), clock_(2 * samples) {
  std::vector<TimedOutput> outputs = timed_outputs(buffers);
  const OutputCheckPlan plan = plan_for(outputs);
  plan_note_ = plan.note;
  outputs_ = std::make_unique<TimedOutputCheck>(std::move(outputs), plan.snapshot, stream);
}

void SampleWatch::start(CaseTimer& timer, CaseOutcome& outcome) {
  flag_persisting_l2(outcome, stream_, "after the warm-up");
  outputs_->take_snapshot();
  timer.watch(outputs_.get(), &clock_);
}

void SampleWatch::conclude(const CaseTimer& timer, CaseOutcome& outcome) {
  TimingResult& t = *outcome.timing;
  const TimedOutputReport report = outputs_->finish();
  t.output_check = report.snapshot ? "snapshot" : "digest";
  t.output_check_note = plan_note_;
  t.output_mismatch = report.describe();
  if (!report.clean()) outcome.add_flag(kFlagTimedOutputMismatch, t.output_mismatch);
  const std::vector<double> device_ms = stamp_intervals_ms(clock_.read(2 * timer.samples_taken(), stream_));
  if (!device_ms.empty() && !t.samples_ms.empty()) {
    t.device_ms_per_sample = summarize(device_ms).median;
    const double event_ms = summarize(t.samples_ms).median;
    if (event_timer_disagrees(event_ms, t.device_ms_per_sample))
      outcome.add_flag(kFlagEventTimerMismatch, "the events' median " + format_ms(event_ms) + " against " +
                                                    format_ms(t.device_ms_per_sample) +
                                                    " of the GPU clock across the same samples");
  }
  flag_persisting_l2(outcome, stream_, "after the timed loop");
}

}  // namespace nb
