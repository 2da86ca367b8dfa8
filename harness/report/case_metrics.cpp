#include "harness/report/case_metrics.hpp"

#include <algorithm>
#include <map>

#include "harness/device/compute_peak.hpp"
#include "harness/device/nvml_monitor.hpp"
#include "harness/errors.hpp"
#include "harness/timing/case_timer.hpp"

namespace nb {

bool CaseMetrics::has_flag(const std::string& f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }

bool CaseMetrics::timing_untrusted() const {
  return std::any_of(flags.begin(), flags.end(), [](const std::string& f) { return !flag_is_informational(f); });
}

Disposition reported_disposition(const CaseOutcome& outcome, const CaseMetrics& metrics) {
  if (outcome.status != CaseStatus::ran) return Disposition::not_verified;
  const Disposition d = outcome.validation.disposition;
  return d == Disposition::passed && metrics.timing_untrusted() ? Disposition::flagged : d;
}

namespace {

bool throttled(const TimingResult& t) {
  if (t.sm_clock_before_mhz && t.sm_clock_after_mhz && *t.sm_clock_after_mhz < 0.9 * *t.sm_clock_before_mhz)
    return true;
  for (const auto& r : t.throttle_reasons)
    if (NvmlMonitor::is_slowdown(r)) return true;
  return false;
}

// A compute-bound case beats the GPU's theoretical arithmetic peak at its precision by more than
// noise: the flops were not all done, or not inside the timed interval. The peak is theoretical,
// so only the case's own spread widens the margin. No check where the table knows no peak.
bool faster_than_compute_peak(const RunRecord& r, const RunCase& c, const TimingResult& t, const CaseMetrics& m) {
  if (!m.tflops) return false;
  const double peak = compute_peak_tflops(r.provenance.gpu, c.problem.dtype);
  const double noise = std::max(r.options.ftl_noise, 2.0 * t.stats.cv);
  return peak > 0 && *m.tflops > peak * (1.0 + noise);
}

void add_flags(const RunRecord& r, const RunCase& c, const TimingResult& t, CaseMetrics& m) {
  const double l2 = static_cast<double>(r.provenance.gpu.l2_bytes);
  bool faster_than_light = faster_than_compute_peak(r, c, t, m);
  if (m.work.bytes < l2) {
    m.flags.push_back(kFlagFitsInL2);
  } else {
    const double noise = std::max(r.options.ftl_noise, 2.0 * (t.stats.cv + r.ceiling.copy_cv));
    faster_than_light = faster_than_light || *m.gbps > r.ceiling.copy_gbps * (1.0 + noise);
  }
  if (faster_than_light) m.flags.push_back(kFlagFasterThanLight);
  if (escapes_stream(t.stats.median, t.wall_ms_per_launch, t.submit_ms_per_launch))
    m.flags.push_back(kFlagEscapesStream);
  if (throttled(t)) m.flags.push_back(kFlagThrottled);
}

// Per problem: the naive variant's median and the best passing library baseline's median, both
// only from timings that can be trusted (a baseline faster than light would inflate speedups).
struct ProblemReferences {
  std::optional<double> naive_ms, baseline_ms;
};

std::map<std::string, ProblemReferences> problem_references(const RunRecord& r, const std::vector<CaseMetrics>& m) {
  std::map<std::string, ProblemReferences> refs;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& t = r.outcomes[i].timing;
    if (!m[i].gbps || m[i].timing_untrusted()) continue;
    auto& ref = refs[r.cases[i].problem.id()];
    const Variant& v = *r.cases[i].variant;
    if (v.kind() == "naive") ref.naive_ms = t->stats.median;
    if (v.is_library_baseline() && r.outcomes[i].validation.disposition == Disposition::passed)
      ref.baseline_ms = std::min(ref.baseline_ms.value_or(t->stats.median), t->stats.median);
  }
  return refs;
}

}  // namespace

std::vector<CaseMetrics> compute_metrics(const RunRecord& r) {
  std::vector<CaseMetrics> all(r.cases.size());
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    CaseMetrics& m = all[i];
    m.work = r.cases[i].op->work(r.cases[i].problem);
    m.flags = r.outcomes[i].flags;
    const auto& t = r.outcomes[i].timing;
    if (!r.outcomes[i].runnable() || !t || t->samples_ms.empty() || t->stats.median <= 0) continue;
    m.gbps = m.work.bytes / (t->stats.median * 1e-3) / 1e9;
    if (r.ceiling.copy_gbps > 0) m.pct_of_copy = 100.0 * *m.gbps / r.ceiling.copy_gbps;
    if (r.ceiling.peak_gbps > 0) m.pct_of_peak = 100.0 * *m.gbps / r.ceiling.peak_gbps;
    if (const ComputeCeiling* gemm = r.compute_ceiling_of(r.cases[i].problem.id())) {
      if (m.work.flops > 0) m.tflops = m.work.flops / (t->stats.median * 1e-3) / 1e12;
      if (gemm->stats.median > 0) m.pct_of_compute_ceiling = 100.0 * gemm->stats.median / t->stats.median;
    }
    add_flags(r, r.cases[i], *t, m);
  }
  const auto refs = problem_references(r, all);
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    if (!all[i].gbps) continue;
    const double median = r.outcomes[i].timing->stats.median;
    const Problem& problem = r.cases[i].problem;
    const auto ref = refs.find(problem.id());
    if (ref != refs.end() && ref->second.baseline_ms) all[i].speedup_vs_baseline = *ref->second.baseline_ms / median;
    if (ref != refs.end() && ref->second.naive_ms) {
      all[i].speedup_vs_naive = *ref->second.naive_ms / median;
    } else if (problem.dtype == DType::tf32 || problem.dtype == DType::bf16) {
      // A naive kernel computes a tf32 problem in fp32, as it does the fp32 problem of the same
      // shape, and declines it (the same launch twice): its fp32 row is the baseline. So for a
      // large bf16 problem, which its naive kernel declines for the seconds a launch would take.
      Problem fp32_twin = problem;
      fp32_twin.dtype = DType::f32;
      const auto twin = refs.find(fp32_twin.id());
      if (twin != refs.end() && twin->second.naive_ms) all[i].speedup_vs_naive = *twin->second.naive_ms / median;
    }
  }
  return all;
}

std::optional<double> pct_of_compute_peak(const RunRecord& r, const ComputeCeiling& c) {
  const double peak = compute_peak_tflops(r.provenance.gpu, c.dtype);
  if (peak <= 0 || c.stats.median <= 0) return std::nullopt;
  return 100.0 * c.tflops() / peak;
}

bool library_misplaces_nonfinite_only(const Variant& v, const CaseOutcome& o) {
  if (!v.is_library_baseline() || o.validation.disposition != Disposition::incorrect) return false;
  bool any = false;
  for (const DistributionVerdict& d : o.validation.distributions) {
    if (d.passed || (!d.counts && !d.hard_failed)) continue;  // a stress bound alone never fails a case
    const bool extreme_input = d.distribution == Distribution::special || d.distribution == Distribution::wide;
    if (!extreme_input || d.unwritten > 0 || d.input_modified || d.nonfinite_mismatch == 0) return false;
    if (d.counts && d.numeric_failed) return false;
    any = true;
  }
  return any;
}

int run_exit_status(const RunRecord& r, const std::vector<CaseMetrics>& metrics) {
  if (r.interrupted) return kExitInterrupted;
  if (!r.aborted.empty()) return kExitDevice;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    if (r.outcomes[i].status == CaseStatus::error) return kExitVerdictFailed;
    if (r.outcomes[i].status != CaseStatus::ran) continue;
    const Disposition d = reported_disposition(r.outcomes[i], metrics[i]);
    if (d == Disposition::incorrect && library_misplaces_nonfinite_only(*r.cases[i].variant, r.outcomes[i])) continue;
    if (d == Disposition::incorrect || d == Disposition::inconclusive || d == Disposition::flagged)
      return kExitVerdictFailed;
  }
  return kExitOk;
}

}  // namespace nb
