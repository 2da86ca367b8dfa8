#include "harness/candidate/outcome_json.hpp"

#include "harness/errors.hpp"
#include "harness/report/phases_json.hpp"
#include "harness/report/reference_summary_json.hpp"

namespace nb {
namespace {

using json = nlohmann::json;

json tensor_json(const TensorErrors& e) {
  return {{"name", e.name},
          {"elements", e.elements},
          {"normwise", e.normwise},
          {"elementwise", e.elementwise},
          {"worst_index", e.worst_index},
          {"worst_value", e.worst_value},
          {"worst_reference", e.worst_reference},
          {"unwritten", e.unwritten},
          {"first_unwritten", e.first_unwritten},
          {"nonfinite_mismatch", e.nonfinite_mismatch},
          {"first_mismatch", e.first_mismatch},
          {"bound", {e.bound.normwise, e.bound.elementwise, e.bound.floor_fraction, e.bound.absolute, e.bound.ceiling}},
          {"inconclusive", e.inconclusive}};
}

TensorErrors tensor_from(const json& j) {
  TensorErrors e;
  e.name = j.at("name");
  e.elements = j.at("elements");
  e.normwise = j.at("normwise");
  e.elementwise = j.at("elementwise");
  e.worst_index = j.at("worst_index");
  e.worst_value = j.at("worst_value");
  e.worst_reference = j.at("worst_reference");
  e.unwritten = j.at("unwritten");
  e.first_unwritten = j.at("first_unwritten");
  e.nonfinite_mismatch = j.at("nonfinite_mismatch");
  e.first_mismatch = j.at("first_mismatch");
  const auto& bound = j.at("bound");
  e.bound = {bound.at(0), bound.at(1), bound.at(2), bound.at(3), bound.at(4)};
  e.inconclusive = j.at("inconclusive");
  return e;
}

json verdict_json(const DistributionVerdict& d) {
  json tensors = json::array();
  for (const auto& t : d.tensors) tensors.push_back(tensor_json(t));
  return {{"distribution", distribution_name(d.distribution)},
          {"passed", d.passed},
          {"counts", d.counts},
          {"stress_reason", d.stress_reason},
          {"seeds", d.seeds},
          {"normwise", d.normwise},
          {"elementwise", d.elementwise},
          {"unwritten", d.unwritten},
          {"nonfinite_mismatch", d.nonfinite_mismatch},
          {"input_modified", d.input_modified},
          {"hard_failed", d.hard_failed},
          {"numeric_failed", d.numeric_failed},
          {"worst_share", d.worst_share},
          {"worst_share_tensor", d.worst_share_tensor},
          {"inconclusive", d.inconclusive},
          {"failure", d.failure},
          {"tensors", tensors}};
}

DistributionVerdict verdict_from(const json& j) {
  DistributionVerdict d;
  d.distribution = parse_distribution(j.at("distribution"));
  d.passed = j.at("passed");
  d.counts = j.at("counts");
  d.stress_reason = j.at("stress_reason");
  d.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  d.normwise = j.at("normwise");
  d.elementwise = j.at("elementwise");
  d.unwritten = j.at("unwritten");
  d.nonfinite_mismatch = j.at("nonfinite_mismatch");
  d.input_modified = j.at("input_modified");
  d.hard_failed = j.at("hard_failed");
  d.numeric_failed = j.at("numeric_failed");
  d.worst_share = j.at("worst_share");
  d.worst_share_tensor = j.at("worst_share_tensor");
  d.inconclusive = j.at("inconclusive").get<std::vector<std::string>>();
  d.failure = j.at("failure");
  for (const auto& t : j.at("tensors")) d.tensors.push_back(tensor_from(t));
  return d;
}

json validation_json(const ValidationResult& v) {
  json per = json::array();
  for (const auto& d : v.distributions) per.push_back(verdict_json(d));
  return {{"disposition", disposition_name(v.disposition)},
          {"condition", v.condition},
          {"tolerance", {v.tolerance.normwise, v.tolerance.elementwise, v.tolerance.floor_fraction}},
          {"distributions", per},
          {"launch_ms_estimate", v.launch_ms_estimate},
          {"after_timing", v.after_timing ? verdict_json(*v.after_timing) : json(nullptr)},
          {"hidden_shape", v.hidden_shape ? hidden_shape_to_json(*v.hidden_shape) : json(nullptr)},
          {"reference", reference_summary_json(v.reference)}};
}

ValidationResult validation_from(const json& j) {
  ValidationResult v;
  v.disposition = parse_disposition(j.at("disposition"));
  v.condition = j.at("condition");
  const auto& t = j.at("tolerance");
  v.tolerance = {t.at(0), t.at(1), t.at(2)};
  for (const auto& d : j.at("distributions")) v.distributions.push_back(verdict_from(d));
  v.launch_ms_estimate = j.at("launch_ms_estimate");
  if (!j.at("after_timing").is_null()) v.after_timing = verdict_from(j.at("after_timing"));
  if (!j.at("hidden_shape").is_null()) v.hidden_shape = hidden_shape_from_json(j.at("hidden_shape"));
  v.reference = reference_summary_from(j.at("reference"));
  return v;
}

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json timing_json(const TimingResult& t) {
  return {{"samples_ms", t.samples_ms},
          {"wall_ms_per_launch", t.wall_ms_per_launch},
          {"submit_ms_per_launch", t.submit_ms_per_launch},
          {"sm_clock_before_mhz", optional_json(t.sm_clock_before_mhz)},
          {"sm_clock_after_mhz", optional_json(t.sm_clock_after_mhz)},
          {"throttle_reasons", t.throttle_reasons},
          {"output_check", t.output_check},
          {"output_check_note", t.output_check_note},
          {"output_mismatch", t.output_mismatch},
          {"device_ms_per_sample", t.device_ms_per_sample}};
}

TimingResult timing_from(const json& j) {
  TimingResult t;
  t.samples_ms = j.at("samples_ms").get<std::vector<double>>();
  t.stats = summarize(t.samples_ms);
  t.wall_ms_per_launch = j.at("wall_ms_per_launch");
  t.submit_ms_per_launch = j.at("submit_ms_per_launch");
  if (!j.at("sm_clock_before_mhz").is_null()) t.sm_clock_before_mhz = j.at("sm_clock_before_mhz").get<int>();
  if (!j.at("sm_clock_after_mhz").is_null()) t.sm_clock_after_mhz = j.at("sm_clock_after_mhz").get<int>();
  t.throttle_reasons = j.at("throttle_reasons").get<std::vector<std::string>>();
  t.output_check = j.at("output_check");
  t.output_check_note = j.at("output_check_note");
  t.output_mismatch = j.at("output_mismatch");
  t.device_ms_per_sample = j.at("device_ms_per_sample");
  return t;
}

CaseStatus status_from(const std::string& name) {
  for (CaseStatus s : {CaseStatus::ran, CaseStatus::skipped, CaseStatus::error, CaseStatus::not_run})
    if (name == case_status_name(s)) return s;
  throw UsageError("unknown case status '" + name + "'");
}

}  // namespace

json hidden_shape_to_json(const HiddenShapeVerdict& v) {
  return {{"problem", v.problem}, {"verdict", v.verdict}, {"detail", v.detail}};
}

HiddenShapeVerdict hidden_shape_from_json(const json& j) {
  try {
    return {j.at("problem"), j.at("verdict"), j.at("detail")};
  } catch (const json::exception& e) {
    throw UsageError(std::string("not a hidden shape verdict: ") + e.what());
  }
}

json outcome_to_json(const CaseOutcome& o) {
  return {{"status", case_status_name(o.status)},
          {"reason", o.reason},
          {"flags", o.flags},
          {"flag_notes", o.flag_notes},
          {"containment", o.containment},
          {"validation", validation_json(o.validation)},
          {"timing", o.timing ? timing_json(*o.timing) : json(nullptr)},
          {"phases", case_phases_json(o.phases)}};
}

CaseOutcome outcome_from_json(const json& j) {
  try {
    CaseOutcome o;
    o.status = status_from(j.at("status"));
    o.reason = j.at("reason");
    o.flags = j.at("flags").get<std::vector<std::string>>();
    o.flag_notes = j.at("flag_notes").get<std::map<std::string, std::string>>();
    o.containment = j.at("containment");
    o.validation = validation_from(j.at("validation"));
    if (!j.at("timing").is_null()) o.timing = timing_from(j.at("timing"));
    o.phases = case_phases_from(j.at("phases"));
    return o;
  } catch (const json::exception& e) {
    throw UsageError(std::string("not a case outcome: ") + e.what());
  }
}

}  // namespace nb
