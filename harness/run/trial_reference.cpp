#include "harness/run/trial_reference.hpp"

#include <array>
#include <future>

#include "harness/cuda_check.hpp"
#include "harness/host_memory.hpp"
#include "harness/validation/device_executor.hpp"
#include "harness/validation/harness_programs.hpp"

namespace nb {
namespace {

class HostTrialReference final : public TrialReference {
 public:
  HostTrialReference(const OpSpec& op, const Problem& problem, const std::vector<TensorDecl>& decls,
                     cudaStream_t stream, std::string why_host)
      : op_(op), problem_(problem), decls_(decls), stream_(stream) {
    summary_.computed_on = "host";
    summary_.why_host = std::move(why_host);
    // Host buffers live for the whole problem: multi-GB vectors are allocated and faulted in once.
    inputs_ = allocate_host_inputs(decls_);
    reference_ = allocate_references(decls_);
    results_ = allocate_host_results(decls_);
    for (HostTensors* host : {&inputs_, &results_})
      for (auto& values : host->data) pinned_.pin(values.data(), values.size() * sizeof(float));
  }

  void prepare(const ProblemBuffers& buffers, Distribution d, std::uint64_t seed, ProblemPhases& phases) override {
    buffers_ = &buffers;
    Stopwatch clock;
    draw_stored_inputs(op_, problem_, decls_, d, seed, inputs_);
    phases.draw_s += clock.lap();
    reference_.condition = 1.0;
    reference_.operand_amplification.clear();
    op_.reference(problem_, inputs_, reference_);
    reference_.rms.clear();
    for (const auto& values : reference_.data) reference_.rms.push_back(finite_rms(values));
    tolerances_ = trial_tolerances(op_, problem_, decls_, inputs_, reference_);
    phases.reference_s += clock.lap();
    buffers.upload(inputs_, {TensorRole::input, TensorRole::inout}, stream_);
    phases.upload_s += clock.lap();
  }

  void reset_inouts() override { buffers_->upload(inputs_, {TensorRole::inout}, stream_); }
  void restore_inputs() override { buffers_->upload(inputs_, {TensorRole::input}, stream_); }

  TrialJudgement judge(bool input_modified) override {
    buffers_->download_results(results_, stream_);
    const auto tolerance_of = [&](int i) { return tolerances_.per_tensor.at(static_cast<std::size_t>(i)); };
    return judge_trial(decls_, results_, reference_, tolerance_of, input_modified);
  }

  const ReferenceSummary& summary() const override { return summary_; }

 private:
  const OpSpec& op_;
  const Problem& problem_;
  const std::vector<TensorDecl>& decls_;
  cudaStream_t stream_;
  const ProblemBuffers* buffers_ = nullptr;
  HostTensors inputs_, results_;
  ReferenceTensors reference_;
  PinnedRanges pinned_;
  ReferenceSummary summary_;
};

ProgramTensors program_tensors_of(const ProblemBuffers& b) {
  ProgramTensors t;
  for (std::size_t i = 0; i < b.decls.size(); ++i) {
    t.data.push_back(b.tensors.buffers[i].get());
    t.storage.push_back(b.decls[i].dtype);
    t.elements.push_back(b.decls[i].elements);
  }
  return t;
}

class DeviceTrialReference final : public TrialReference {
 public:
  DeviceTrialReference(const OpSpec& op, const Problem& problem, const std::vector<TensorDecl>& decls,
                       cudaStream_t stream, const AuditBudget& budget)
      : op_(op), problem_(problem), decls_(decls), executor_(stream), budget_(budget) {
    summary_.computed_on = "device";
    reference_.data.assign(decls_.size(), nullptr);
    for (std::size_t i = 0; i < decls_.size(); ++i) {
      if (decls_[i].role == TensorRole::input) {
        reference_buffers_.emplace_back();
        continue;
      }
      reference_buffers_.emplace_back(static_cast<std::size_t>(decls_[i].elements) * sizeof(double));
      reference_.data[i] = reference_buffers_.back().as<double>();
    }
    rms_.assign(decls_.size(), 0.0);
  }

  void prepare(const ProblemBuffers& buffers, Distribution d, std::uint64_t seed, ProblemPhases& phases) override {
    AuditLane& lane = lanes_[next_lane_];
    next_lane_ ^= 1;
    wait_for(lane, phases);  // the audit of two trials back, whose staging this trial's audit reuses
    tensors_ = program_tensors_of(buffers);
    draws_ = op_.input_draws(problem_, d);
    seed_ = seed;
    Stopwatch clock;
    draw_all();
    phases.draw_s += clock.lap();
    Executor ex(executor_);
    const ReferenceConditions conditions = op_.reference_program(problem_, tensors_, reference_, ex);
    for (std::size_t i = 0; i < decls_.size(); ++i)
      if (reference_.data[i]) rms_[i] = finite_squares(executor_, reference_.data[i], decls_[i].elements).rms();
    tolerances_ = trial_tolerances(op_, problem_, decls_, conditions);
    phases.reference_s += clock.lap();
    // What the audit takes from the device is copied now, in stream order before any variant
    // launch can write an input; Eigen checks it on a host thread while the variants run.
    lane.staging.recycle();  // wait_for above: no audit reads it any more
    StagedAudit audit = stage_audit({op_, problem_, decls_, tensors_, reference_, draws_, seed_, tolerances_}, ex, budget_,
                                    lane.staging);
    phases.audit_gather_s += clock.lap();
    lane.pending = std::async(std::launch::async,
                              [&lane, audit = std::move(audit)] { check_audit(audit, lane.found, lane.memory); });
  }

  void settle(ProblemPhases& phases) override {
    for (AuditLane& lane : lanes_) wait_for(lane, phases);
  }

  void reset_inouts() override {
    std::vector<InputDraw> inouts;
    for (const InputDraw& d : draws_)
      if (decls_.at(std::size_t(d.tensor)).role == TensorRole::inout) inouts.push_back(d);
    draw_inputs(executor_, inouts, tensors_, seed_);
  }

  void restore_inputs() override { draw_all(); }

  TrialJudgement judge(bool input_modified) override {
    const auto tolerance_of = [&](int i) { return tolerances_.per_tensor.at(static_cast<std::size_t>(i)); };
    return judge_trial(decls_, tolerance_of, [&](int i, const Tolerance& tol) {
      const std::size_t k = static_cast<std::size_t>(i);
      const ErrorTally tally = compare_output(executor_, tensors_.in(i), reference_.data[k], decls_[k].elements,
                                              tol.floor_fraction * rms_[k], tol.absolute);
      return tensor_errors(decls_[k].name, decls_[k].elements, tally, tol);
    }, input_modified);
  }

  const ReferenceSummary& summary() const override { return summary_; }

 private:
  // Every declared draw, then the derived inputs (the same each time: a restore redraws them).
  void draw_all() {
    draw_inputs(executor_, draws_, tensors_, seed_);
    Executor ex(executor_);
    op_.derive_inputs(problem_, seed_, tensors_, ex);
    NB_CUDA_CHECK(cudaStreamSynchronize(executor_.stream()));
  }


  const OpSpec& op_;
  const Problem& problem_;
  const std::vector<TensorDecl>& decls_;
  DeviceExecutor executor_;
  AuditBudget budget_;
  std::vector<DeviceBuffer> reference_buffers_;
  ProgramReference reference_;
  std::vector<double> rms_;
  ProgramTensors tensors_;
  std::vector<InputDraw> draws_;
  std::uint64_t seed_ = 0;
  ReferenceSummary summary_;  // the audits' findings, each added once it is waited for

  // One audit on its way: where its copies land (pinned, recycled between its trials), its host
  // memory, what it found, and its future. Two lanes in turn, so that a trial's audit may still run
  // on the host while the next trial's audit does: with one, the quick suite's validation waited
  // 13 s for audits (of trials a few milliseconds long) that finished after their trial's variants.
  struct AuditLane {
    AuditStaging staging{true};
    AuditHostMemory memory;
    ReferenceSummary found;
    // Last, so destroyed first: std::async's future waits for the audit before what it reads goes.
    std::future<void> pending;
  };

  // Waits for the lane's audit (rethrowing its ReferenceDisagreement) and adds what it found.
  void wait_for(AuditLane& lane, ProblemPhases& phases) {
    if (!lane.pending.valid()) return;
    Stopwatch clock;
    std::future<void> audit = std::move(lane.pending);
    audit.get();
    phases.audit_wait_s += clock.lap();
    summary_.add_audits(lane.found);
    lane.found = ReferenceSummary{};
  }

  std::array<AuditLane, 2> lanes_;  // last members, so their audits end before what they read goes
  std::size_t next_lane_ = 0;
};

}  // namespace

std::unique_ptr<TrialReference> make_host_trial_reference(const OpSpec& op, const Problem& problem,
                                                          const std::vector<TensorDecl>& decls, cudaStream_t stream,
                                                          std::string why_host) {
  return std::make_unique<HostTrialReference>(op, problem, decls, stream, std::move(why_host));
}

std::unique_ptr<TrialReference> make_device_trial_reference(const OpSpec& op, const Problem& problem,
                                                            const std::vector<TensorDecl>& decls, cudaStream_t stream,
                                                            const AuditBudget& budget) {
  return std::make_unique<DeviceTrialReference>(op, problem, decls, stream, budget);
}

void draw_trial_inputs(const OpSpec& op, const Problem& problem, const ProblemBuffers& buffers, Distribution d,
                       std::uint64_t seed, cudaStream_t stream) {
  const std::vector<InputDraw> draws = op.input_draws(problem, d);
  if (draws.empty()) {
    HostTensors inputs = allocate_host_inputs(buffers.decls);
    draw_stored_inputs(op, problem, buffers.decls, d, seed, inputs);
    buffers.upload(inputs, {TensorRole::input, TensorRole::inout}, stream);
    return;
  }
  DeviceExecutor executor(stream);
  const ProgramTensors tensors = program_tensors_of(buffers);
  draw_inputs(executor, draws, tensors, seed);
  Executor ex(executor);
  op.derive_inputs(problem, seed, tensors, ex);
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::string why_no_device_reference(const OpSpec& op, const Problem& problem) {
  if (!op.has_reference_program()) return op.name() + " has no reference program";
  if (op.input_draws(problem, Distribution::uniform01).empty()) return op.name() + " declares no input draws";
  return "";
}

double device_reference_bytes(const std::vector<TensorDecl>& decls) {
  double bytes = 0;
  for (const TensorDecl& d : decls) bytes += double(d.elements) * sizeof(double);
  return bytes;
}

}  // namespace nb
