#include "harness/report/json/report_json.hpp"

#include <algorithm>
#include <limits>

#include "harness/device/compute_peak.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/report/json/launches_json.hpp"
#include "harness/report/json/phases_json.hpp"
#include "harness/report/json/result_json.hpp"
#include "harness/report/json_nulls.hpp"

namespace nb {
namespace {

using json = nlohmann::ordered_json;

json provenance_json(const Provenance& p) {
  const GpuInfo& g = p.gpu;
  return {{"gpu",
           {{"name", g.name}, {"slug", g.slug}, {"uuid", g.uuid}, {"compute_capability", g.compute_capability},
            {"sm_count", g.sm_count}, {"l2_bytes", g.l2_bytes}, {"memory_bytes", g.memory_bytes},
            {"sm_clock_max_mhz", g.sm_clock_max_mhz}, {"memory_clock_mhz", g.memory_clock_mhz},
            {"memory_bus_bits", g.memory_bus_bits}, {"sm_clock_at_start_mhz", optional_json(p.sm_clock_at_start_mhz)}}},
          {"driver_version", p.driver_version},
          {"cuda_driver_api", p.cuda_driver_api},
          {"cuda_runtime", p.cuda_runtime},
          {"cublas_version", p.cublas_version},
          {"cudnn_version", p.cudnn_version},
          {"cudnn_header_version", p.cudnn_header_version},
          {"git_commit", p.git_commit},
          {"git_dirty", optional_json(p.git_dirty)},
          {"normbench_version", p.normbench_version},
          {"command_line", p.command_line},
          {"hostname", p.hostname},
          {"started_at", p.started_at},
          {"finished_at", p.finished_at}};
}

// Every precision a problem can be stated in (harness/dtype.hpp), for the per-dtype peaks.
constexpr DType kAllDTypes[] = {DType::f32, DType::tf32, DType::bf16};

template <class PerDType>
json per_dtype_json(PerDType value_of) {
  json out = json::object();
  for (DType t : kAllDTypes) {
    const double value = value_of(t);
    out[dtype_name(t)] = value > 0 ? json(value) : json(nullptr);
  }
  return out;
}

json ceilings_json(const BandwidthCeiling& c, const GpuInfo& gpu) {
  return {{"copy_gbps", c.copy_gbps},   {"copy_cv", c.copy_cv},     {"copy_bytes", c.copy_bytes},
          {"copy_samples", c.copy_samples}, {"peak_gbps", c.peak_gbps},
          {"copy_fraction_of_peak", c.peak_gbps > 0 ? c.copy_gbps / c.peak_gbps : 0.0},
          {"compute_peak_tflops", per_dtype_json([&](DType t) { return compute_peak_tflops(gpu, t); })},
          {"compute_peak_flops_per_clock_per_sm",
           per_dtype_json([&](DType t) { return flops_per_clock_per_sm(gpu.compute_capability, t); })}};
}

json compute_ceiling_json(const RunRecord& r, const ComputeCeiling& c) {
  const bool timed = c.stats.median > 0;
  return {{"problem", c.problem_id},
          {"dtype", dtype_name(c.dtype)},
          {"kernel", c.kernel},
          {"idea", c.idea},
          {"flops", c.flops},
          {"tflops", timed ? json(c.tflops()) : json(nullptr)},
          {"pct_of_compute_peak", optional_json(pct_of_compute_peak(r, c))},
          {"median_ms", timed ? json(c.stats.median) : json(nullptr)},
          {"p10_ms", timed ? json(c.stats.p10) : json(nullptr)},
          {"p90_ms", timed ? json(c.stats.p90) : json(nullptr)},
          {"cv", timed ? json(c.stats.cv) : json(nullptr)},
          {"samples", c.stats.samples}};
}

json compute_ceilings_json(const RunRecord& r) {
  json out = json::array();
  for (const ComputeCeiling& c : r.compute_ceilings) out.push_back(compute_ceiling_json(r, c));
  return out;
}

json settings_json(const RunRecord& r) {
  const RunOptions& o = r.options;
  return {{"suite", text_or_null(o.suite)},
          {"validate_only", o.validate_only},
          {"profile", o.profile},
          {"trials", o.validation.trials},
          {"strict", o.validation.strict},
          {"full_validation_elements", o.validation.full_validation_elements},
          {"huge_problem_elements", o.validation.huge_problem_elements},
          {"huge_problem_trials", o.validation.huge_problem_trials},
          {"slow_launch_ms", o.validation.slow_launch_ms},
          {"tensor_placement", o.placement == TensorPlacement::misaligned ? "misaligned" : "aligned"},
          {"reference", o.validation.reference == ReferencePlace::host ? "host" : "device"},
          {"min_time_s", o.samples.min_time_s},
          {"min_samples", o.samples.min_samples},
          {"max_samples", o.samples.max_samples},
          {"l2_flush_bytes", r.l2_flush_bytes},
          {"ftl_noise", o.ftl_noise},
          {"plan_cache",
           {{"folder", o.plan_cache.enabled() ? json(o.plan_cache.folder) : json(nullptr)},
            {"origin", o.plan_cache.origin}}},
          {"rows_in_flight", o.rows_in_flight ? json(*o.rows_in_flight) : json(nullptr)}};
}

json validation_json(const ValidationResult& v, DType storage) {
  if (v.distributions.empty()) return nullptr;
  return validation_result_json(v, storage);
}

json timing_json(const std::optional<TimingResult>& t) {
  if (!t || t->samples_ms.empty()) return nullptr;
  return timing_result_json(*t);
}

// A candidate from outside the repository (normbench eval): its source, hash, compile command,
// and how its worker process ended; null for the built-in variants.
json external_json(const RunCase& c, const CaseOutcome& o) {
  const ExternalSource* s = c.variant->external();
  if (!s) return nullptr;
  return {{"source", s->source},
          {"source_sha256", s->sha256},
          {"compile_command", text_or_null(s->compile_command)},
          {"library", s->library},
          {"containment", text_or_null(o.containment)}};
}

json result_json(const RunCase& c, const CaseOutcome& o, const CaseMetrics& m) {
  json params = json::object();
  for (const auto& [k, v] : c.problem.params.values()) params[k] = v;
  const bool ran = o.status == CaseStatus::ran;
  return {{"op", c.op->name()},
          {"variant", c.variant->name()},
          {"kind", c.variant->kind()},
          {"idea", c.variant->idea()},
          {"problem", c.problem.id()},
          {"problem_name", c.problem.name},
          {"params", params},
          {"dtype", dtype_name(c.problem.dtype)},
          {"suites", c.suites},
          {"status", case_status_name(o.status)},
          {"skip_reason", o.status == CaseStatus::skipped ? json(o.reason) : json(nullptr)},
          {"error", o.status == CaseStatus::error ? json(o.reason) : json(nullptr)},
          {"not_run_reason", o.status == CaseStatus::not_run ? json(o.reason) : json(nullptr)},
          {"disposition", disposition_name(reported_disposition(o, m))},
          {"validation", ran ? validation_json(o.validation, storage_type(c.problem.dtype)) : json(nullptr)},
          {"timing", ran ? timing_json(o.timing) : json(nullptr)},
          {"launches", ran && o.launches ? case_launches_json(*o.launches) : json(nullptr)},
          {"bytes", m.work.bytes},
          {"bytes_formula", m.work.formula},
          {"flops", m.work.flops},
          {"gbps", optional_json(m.gbps)},
          {"pct_of_copy", optional_json(m.pct_of_copy)},
          {"pct_of_peak", optional_json(m.pct_of_peak)},
          {"tflops", optional_json(m.tflops)},
          {"pct_of_compute_ceiling", optional_json(m.pct_of_compute_ceiling)},
          {"flags", m.flags},
          {"flag_notes", o.flag_notes},
          {"speedup_vs_naive", optional_json(m.speedup_vs_naive)},
          {"speedup_vs_baseline", optional_json(m.speedup_vs_baseline)},
          {"reproduce", reproduce_command(c)},
          {"profile", profile_command(c)},
          {"nvtx_range", c.nvtx_name()},
          {"external", external_json(c, o)},
          {"phases", case_phases_json(o.phases)}};
}

json summary_json(const RunRecord& r, const std::vector<CaseMetrics>& metrics) {
  int ran = 0, skipped = 0, errors = 0, not_run = 0, passed = 0, incorrect = 0, inconclusive = 0, not_verified = 0,
      flagged = 0, fragile = 0;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const CaseOutcome& o = r.outcomes[i];
    ran += o.status == CaseStatus::ran;
    skipped += o.status == CaseStatus::skipped;
    errors += o.status == CaseStatus::error;
    not_run += o.status == CaseStatus::not_run;
    const Disposition d = reported_disposition(o, metrics[i]);
    passed += d == Disposition::passed;
    incorrect += d == Disposition::incorrect;
    inconclusive += d == Disposition::inconclusive;
    not_verified += d == Disposition::not_verified;
    flagged += d == Disposition::flagged;
    fragile += d == Disposition::passed && !o.validation.fragile().empty();
  }
  return {{"cases", r.cases.size()},   {"ran", ran},
          {"skipped", skipped},        {"errors", errors},
          {"not_run", not_run},        {"passed", passed},
          {"incorrect", incorrect},    {"inconclusive", inconclusive},
          {"not_verified", not_verified}, {"flagged", flagged},
          {"fragile", fragile},        {"exit_status", run_exit_status(r, metrics)}};
}

// How the run ended: interrupted (SIGINT/SIGTERM), aborted (why: a fault that left the CUDA
// context unusable), and the cases it did not finish.
json not_run_json(const RunRecord& r) {
  json names = json::array();
  for (std::size_t i = 0; i < r.cases.size(); ++i)
    if (r.outcomes[i].status == CaseStatus::not_run) names.push_back(r.cases[i].name());
  return names;
}

}  // namespace

std::string reproduce_command(const RunCase& c) {
  if (const ExternalSource* s = c.variant->external())
    return "normbench eval " + s->source + " --op " + c.op->name() + " --problem " + c.problem.id() + " --name " +
           c.variant->name();
  return "normbench run --problem " + c.problem.id() + " --variant " + c.variant->name();
}

std::string profile_command(const RunCase& c) {
  return "ncu --nvtx --nvtx-include \"" + ncu_nvtx_filter(c.nvtx_name()) + "\" --set full -o " + c.op->name() + "-" +
         c.variant->name() + " normbench run --profile --problem " + c.problem.id() + " --variant " +
         c.variant->name();
}

nlohmann::ordered_json build_report_json(const RunRecord& r, const std::vector<CaseMetrics>& metrics) {
  json results = json::array();
  for (std::size_t i = 0; i < r.cases.size(); ++i) results.push_back(result_json(r.cases[i], r.outcomes[i], metrics[i]));
  return {{"schema", kReportSchema},
          {"schema_version", kReportSchemaVersion},
          {"schema_minor_version", kReportSchemaMinorVersion},
          {"provenance", provenance_json(r.provenance)},
          {"ceilings", ceilings_json(r.ceiling, r.provenance.gpu)},
          {"compute_ceilings", compute_ceilings_json(r)},
          {"settings", settings_json(r)},
          {"interrupted", r.interrupted},
          {"aborted", text_or_null(r.aborted)},
          {"not_run", not_run_json(r)},
          {"results", results},
          {"summary", summary_json(r, metrics)},
          {"phases", run_phases_json(r.phases, r.phase_totals(), r.problem_phases)}};
}

}  // namespace nb
