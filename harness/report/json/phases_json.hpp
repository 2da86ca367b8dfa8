#pragma once
// The JSON form of the phase times (harness/run/phase_times.hpp), one form for the report and the
// candidate worker's outcome alike.
#include <nlohmann/json.hpp>

#include "harness/run/phase_times.hpp"

namespace nb {

// {"validation_s": {"uniform01": 0.12, ...}, "timing_s", "bracket_s", "recheck_s", "total_s"}
nlohmann::ordered_json case_phases_json(const CasePhases& p);
// Throws nlohmann::json::exception when a field is missing or of the wrong type.
CasePhases case_phases_from(const nlohmann::json& j);

// {"variant", "plan", "source": built|loaded|refused, "seconds", "runtime_compiled", "status"}
nlohmann::ordered_json plan_event_json(const PlanEvent& e);
nlohmann::ordered_json problem_phases_json(const ProblemPhases& p);
// The library plans built ahead (phases.validation.plans_ahead).
nlohmann::ordered_json plans_ahead_json(const PlanAheadStats& a);

// The run's phases, the totals the printed breakdown shows, and every problem's phases.
nlohmann::ordered_json run_phases_json(const RunPhases& run, const PhaseTotals& totals,
                                       const std::vector<ProblemPhases>& problems);

}  // namespace nb
