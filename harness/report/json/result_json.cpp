#include "harness/report/json/result_json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "harness/report/json/reference_summary_json.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/json_nulls.hpp"
#include "harness/timing/statistics.hpp"

namespace nb {
namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

// A share of a bound that JSON can hold (it has no infinity).
double finite_share(double share) { return std::min(share, std::numeric_limits<double>::max()); }

// JSON writes a NaN or an infinity as null: it reads back as NaN.
double number(const json& j) { return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>(); }
std::string text(const json& j) { return j.is_null() ? std::string() : j.get<std::string>(); }

ojson tensor_errors_json(const TensorErrors& e) {
  return {{"name", e.name},
          {"elements", e.elements},
          {"normwise_error", e.normwise},
          {"elementwise_error", e.elementwise},
          {"normwise_bound", e.bound.normwise},
          {"elementwise_bound", e.bound.elementwise},
          {"bound_floor_fraction", e.bound.floor_fraction},
          {"bound_absolute", e.bound.absolute},
          {"discrimination_ceiling", e.bound.ceiling},
          {"share_of_bound", finite_share(e.share_of_bound())},
          {"inconclusive", e.inconclusive},
          {"worst_index", e.worst_index},
          {"worst_value", e.worst_value},
          {"worst_reference", e.worst_reference},
          {"unwritten", e.unwritten},
          {"first_unwritten", e.first_unwritten},
          {"nonfinite_mismatch", e.nonfinite_mismatch},
          {"first_mismatch", e.first_mismatch}};
}

TensorErrors tensor_errors_from(const json& j) {
  TensorErrors e;
  e.name = j.at("name");
  e.elements = j.at("elements");
  e.normwise = number(j.at("normwise_error"));
  e.elementwise = number(j.at("elementwise_error"));
  e.bound = {number(j.at("normwise_bound")), number(j.at("elementwise_bound")), number(j.at("bound_floor_fraction")),
             number(j.at("bound_absolute")), number(j.at("discrimination_ceiling"))};
  e.inconclusive = j.at("inconclusive");
  e.worst_index = j.at("worst_index");
  e.worst_value = number(j.at("worst_value"));
  e.worst_reference = number(j.at("worst_reference"));
  e.unwritten = j.at("unwritten");
  e.first_unwritten = j.at("first_unwritten");
  e.nonfinite_mismatch = j.at("nonfinite_mismatch");
  e.first_mismatch = j.at("first_mismatch");
  return e;
}

ojson distribution_json(const DistributionVerdict& d, std::optional<DType> storage) {
  ojson tensors = ojson::array();
  for (const auto& t : d.tensors) tensors.push_back(tensor_errors_json(t));
  return {{"distribution", distribution_name(d.distribution)},
          {"formula", storage ? ojson(distribution_formula(d.distribution, *storage)) : ojson(nullptr)},
          {"verdict", d.passed ? "passed" : "failed"},
          {"counts", d.counts},
          {"stress_reason", text_or_null(d.stress_reason)},
          {"trials", d.seeds.size()},
          {"seeds", d.seeds},
          {"normwise_error", d.normwise},
          {"elementwise_error", d.elementwise},
          {"unwritten", d.unwritten},
          {"nonfinite_mismatch", d.nonfinite_mismatch},
          {"input_modified", d.input_modified},
          {"hard_failed", d.hard_failed},
          {"numeric_failed", d.numeric_failed},
          {"worst_share_of_bound", finite_share(d.worst_share)},
          {"worst_share_tensor", text_or_null(d.worst_share_tensor)},
          {"inconclusive", d.inconclusive},
          {"failure", text_or_null(d.failure)},
          {"tensors", tensors}};
}

DistributionVerdict distribution_from(const json& j) {
  DistributionVerdict d;
  d.distribution = parse_distribution(j.at("distribution"));
  d.passed = j.at("verdict") == "passed";
  d.counts = j.at("counts");
  d.stress_reason = text(j.at("stress_reason"));
  d.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  d.normwise = number(j.at("normwise_error"));
  d.elementwise = number(j.at("elementwise_error"));
  d.unwritten = j.at("unwritten");
  d.nonfinite_mismatch = j.at("nonfinite_mismatch");
  d.input_modified = j.at("input_modified");
  d.hard_failed = j.at("hard_failed");
  d.numeric_failed = j.at("numeric_failed");
  d.worst_share = number(j.at("worst_share_of_bound"));
  d.worst_share_tensor = text(j.at("worst_share_tensor"));
  d.inconclusive = j.at("inconclusive").get<std::vector<std::string>>();
  d.failure = text(j.at("failure"));
  for (const auto& t : j.at("tensors")) d.tensors.push_back(tensor_errors_from(t));
  return d;
}

ojson fragile_json(const ValidationResult& v) {
  ojson out = ojson::array();
  for (const StressExcess& e : v.fragile())
    out.push_back({{"distribution", distribution_name(e.distribution)},
                   {"tensor", e.tensor},
                   {"share_of_bound", finite_share(e.share_of_bound)}});
  return out;
}

ojson board_window_json(const std::optional<BoardWindow>& w) {
  if (!w) return nullptr;
  return {{"window_ms", w->window_ms},
          {"avg_power_w", optional_json(w->avg_power_w)},
          {"power_capped_ms", optional_json(w->power_capped_ms)},
          {"thermal_capped_ms", optional_json(w->thermal_capped_ms)}};
}

std::optional<BoardWindow> board_window_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  BoardWindow w;
  w.window_ms = number(j.at("window_ms"));
  w.avg_power_w = number_of(j, "avg_power_w");
  w.power_capped_ms = number_of(j, "power_capped_ms");
  w.thermal_capped_ms = number_of(j, "thermal_capped_ms");
  return w;
}

}  // namespace

ojson hidden_shape_json(const HiddenShapeVerdict& v) {
  return {{"problem", v.problem}, {"verdict", v.verdict}, {"detail", text_or_null(v.detail)}};
}

HiddenShapeVerdict hidden_shape_from(const json& j) { return {j.at("problem"), j.at("verdict"), text(j.at("detail"))}; }

ojson validation_result_json(const ValidationResult& v, std::optional<DType> storage) {
  ojson per = ojson::array();
  for (const auto& d : v.distributions) per.push_back(distribution_json(d, storage));
  return {{"disposition", disposition_name(v.disposition)},
          {"condition", v.condition},
          {"operand_amplification", v.operand_amplification},
          {"tolerance",
           {{"normwise", v.tolerance.normwise},
            {"elementwise", v.tolerance.elementwise},
            {"floor_fraction", v.tolerance.floor_fraction}}},
          {"per_distribution", per},
          {"robust_to", v.robust_to()},
          {"fragile", fragile_json(v)},
          {"inconclusive_checks", v.inconclusive_checks()},
          {"launch_ms_estimate", v.launch_ms_estimate},
          {"after_timing", v.after_timing ? distribution_json(*v.after_timing, storage) : ojson(nullptr)},
          {"hidden_shape", v.hidden_shape ? hidden_shape_json(*v.hidden_shape) : ojson(nullptr)},
          {"reference", reference_summary_json(v.reference)}};
}

ValidationResult validation_result_from(const json& j) {
  ValidationResult v;
  v.disposition = parse_disposition(j.at("disposition"));
  v.condition = number(j.at("condition"));
  v.operand_amplification = j.value("operand_amplification", 0.0);  // minor 8
  const json& t = j.at("tolerance");
  v.tolerance = {number(t.at("normwise")), number(t.at("elementwise")), number(t.at("floor_fraction"))};
  for (const auto& d : j.at("per_distribution")) v.distributions.push_back(distribution_from(d));
  v.launch_ms_estimate = number(j.at("launch_ms_estimate"));
  if (!j.at("after_timing").is_null()) v.after_timing = distribution_from(j.at("after_timing"));
  if (!j.at("hidden_shape").is_null()) v.hidden_shape = hidden_shape_from(j.at("hidden_shape"));
  v.reference = reference_summary_from(j.at("reference"));
  return v;
}

ojson timing_result_json(const TimingResult& t) {
  const SampleStats& s = t.stats;
  return {{"samples", s.samples},
          {"median_ms", s.median},
          {"min_ms", s.min},
          {"max_ms", s.max},
          {"mean_ms", s.mean},
          {"p10_ms", s.p10},
          {"p90_ms", s.p90},
          {"cv", s.cv},
          {"samples_ms", t.samples_ms},
          {"wall_ms_per_launch", t.wall_ms_per_launch},
          {"submit_ms_per_launch", t.submit_ms_per_launch},
          {"sm_clock_before_mhz", optional_json(t.sm_clock_before_mhz)},
          {"sm_clock_after_mhz", optional_json(t.sm_clock_after_mhz)},
          {"throttle_reasons", t.throttle_reasons},
          {"device_ms_per_sample", t.device_ms_per_sample > 0 ? ojson(t.device_ms_per_sample) : ojson(nullptr)},
          {"board", board_window_json(t.board)},
          {"output_check",
           {{"compared", text_or_null(t.output_check)},
            {"note", text_or_null(t.output_check_note)},
            {"mismatch", text_or_null(t.output_mismatch)}}}};
}

TimingResult timing_result_from(const json& j) {
  TimingResult t;
  t.samples_ms = j.at("samples_ms").get<std::vector<double>>();
  t.stats = summarize(t.samples_ms);
  t.wall_ms_per_launch = number(j.at("wall_ms_per_launch"));
  t.submit_ms_per_launch = number(j.at("submit_ms_per_launch"));
  if (!j.at("sm_clock_before_mhz").is_null()) t.sm_clock_before_mhz = j.at("sm_clock_before_mhz").get<int>();
  if (!j.at("sm_clock_after_mhz").is_null()) t.sm_clock_after_mhz = j.at("sm_clock_after_mhz").get<int>();
  t.throttle_reasons = j.at("throttle_reasons").get<std::vector<std::string>>();
  const json& device_ms = j.at("device_ms_per_sample");
  t.device_ms_per_sample = device_ms.is_null() ? 0 : device_ms.get<double>();
  t.board = j.contains("board") ? board_window_from(j.at("board")) : std::nullopt;  // minor 13
  const json& check = j.at("output_check");
  t.output_check = text(check.at("compared"));
  t.output_check_note = text(check.at("note"));
  t.output_mismatch = text(check.at("mismatch"));
  return t;
}

}  // namespace nb
