#include "harness/candidate/outcome_json.hpp"

#include "harness/errors.hpp"
#include "harness/report/json/launches_json.hpp"
#include "harness/report/json/phases_json.hpp"
#include "harness/report/json/result_json.hpp"

namespace nb {
namespace {

using json = nlohmann::json;

CaseStatus status_from(const std::string& name) {
  for (CaseStatus s : {CaseStatus::ran, CaseStatus::skipped, CaseStatus::error, CaseStatus::not_run})
    if (name == case_status_name(s)) return s;
  throw UsageError("unknown case status '" + name + "'");
}

}  // namespace

json hidden_shape_to_json(const HiddenShapeVerdict& v) { return hidden_shape_json(v); }

HiddenShapeVerdict hidden_shape_from_json(const json& j) {
  try {
    return hidden_shape_from(j);
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
          {"validation", validation_result_json(o.validation)},
          {"timing", o.timing ? json(timing_result_json(*o.timing)) : json(nullptr)},
          {"launches", o.launches ? json(case_launches_json(*o.launches)) : json(nullptr)},
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
    o.validation = validation_result_from(j.at("validation"));
    if (!j.at("timing").is_null()) o.timing = timing_result_from(j.at("timing"));
    if (!j.at("launches").is_null()) o.launches = case_launches_from(j.at("launches"));
    o.phases = case_phases_from(j.at("phases"));
    return o;
  } catch (const json::exception& e) {
    throw UsageError(std::string("not a case outcome: ") + e.what());
  }
}

}  // namespace nb
