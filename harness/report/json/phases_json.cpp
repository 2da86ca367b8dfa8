#include "harness/report/json/phases_json.hpp"

namespace nb {

using json = nlohmann::ordered_json;

json case_phases_json(const CasePhases& p) {
  json validation = json::object();
  for (const auto& [d, s] : p.validation_s) validation[distribution_name(d)] = s;
  return {{"validation_s", validation},
          {"timing_s", p.timing_s},
          {"bracket_s", p.bracket_s},
          {"recheck_s", p.recheck_s},
          {"launches_s", p.launches_s},
          {"total_s", p.total()}};
}

CasePhases case_phases_from(const nlohmann::json& j) {
  CasePhases p;
  const nlohmann::json& validation = j.at("validation_s");
  for (const auto& [name, s] : validation.items()) parse_distribution(name);  // refuses unknown names
  for (Distribution d : all_distributions())  // the design's order, whatever order the object kept
    if (validation.contains(distribution_name(d))) p.add_validation(d, validation.at(distribution_name(d)).get<double>());
  p.timing_s = j.at("timing_s").get<double>();
  p.bracket_s = j.at("bracket_s").get<double>();
  p.recheck_s = j.at("recheck_s").get<double>();
  p.launches_s = j.at("launches_s").get<double>();
  return p;
}

json plan_event_json(const PlanEvent& e) {
  return {{"variant", e.variant},
          {"plan", e.plan},
          {"source", plan_source_name(e.source)},
          {"seconds", e.seconds},
          {"runtime_compiled", e.runtime_compiled},
          {"status", e.status}};
}

json plans_ahead_json(const PlanAheadStats& a) {
  return {{"threads", a.threads},     {"tasks", a.tasks},   {"planned", a.planned}, {"failed", a.failed},
          {"taken_back", a.taken_back}, {"wall_s", a.wall_s}, {"busy_s", a.busy_s},   {"waited_s", a.waited_s}};
}

json problem_phases_json(const ProblemPhases& p) {
  json plans = json::array();
  for (const PlanEvent& e : p.plans) plans.push_back(plan_event_json(e));
  return {{"problem", p.problem},
          {"reference", p.reference},
          {"prepare_s", p.prepare_s},
          {"draw_s", p.draw_s},
          {"reference_s", p.reference_s},
          {"audit_s", p.audit_s()},
          {"audit_gather_s", p.audit_gather_s},
          {"audit_wait_s", p.audit_wait_s},
          {"upload_s", p.upload_s},
          {"timing_inputs_s", p.timing_inputs_s},
          {"ceiling_s", p.ceiling_s},
          {"total_s", p.total()},
          {"plans", plans}};
}

json run_phases_json(const RunPhases& run, const PhaseTotals& t, const std::vector<ProblemPhases>& problems) {
  json per_problem = json::array();
  for (const ProblemPhases& p : problems) per_problem.push_back(problem_phases_json(p));
  return {{"total_s", run.total_s},
          {"setup_s", run.setup_s},
          {"copy_ceiling_s", run.copy_ceiling_s},
          {"validation_s", run.validation_s},
          {"timing_s", run.timing_s},
          {"validation",
           {{"prepare_s", t.prepare},
            {"plan_build_s", t.plan_build},
            {"plan_load_s", t.plan_load},
            {"plan_cache_misses", t.plan_misses},
            {"plan_cache_hits", t.plan_hits},
            {"draw_s", t.draw},
            {"reference_s", t.reference},
            {"audit_s", t.audit()},
            {"audit_gather_s", t.audit_gather},
            {"audit_wait_s", t.audit_wait},
            {"upload_s", t.upload},
            {"variants_s", t.variants},
            {"launches_s", t.launches},
            {"plans_ahead", plans_ahead_json(t.plans_ahead)}}},
          {"timing",
           {{"inputs_s", t.timing_inputs},
            {"compute_ceilings_s", t.compute_ceilings},
            {"samples_s", t.samples},
            {"brackets_s", t.brackets},
            {"rechecks_s", t.rechecks}}},
          {"other_s", t.other()},
          {"problems", per_problem}};
}

}  // namespace nb
