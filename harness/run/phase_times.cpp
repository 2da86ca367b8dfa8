#include "harness/run/phase_times.hpp"

namespace nb {

double Stopwatch::lap() {
  const auto now = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  return s;
}

void CasePhases::add_validation(Distribution d, double seconds) {
  for (auto& [dist, s] : validation_s)
    if (dist == d) {
      s += seconds;
      return;
    }
  validation_s.emplace_back(d, seconds);
}

double CasePhases::validation_total() const {
  double sum = 0;
  for (const auto& entry : validation_s) sum += entry.second;
  return sum;
}

double PhaseTotals::other() const {
  return total - setup - copy_ceiling - validation - timing;
}

PhaseTotals sum_phases(const RunPhases& run, const std::vector<ProblemPhases>& problems,
                       const std::vector<CasePhases>& cases) {
  PhaseTotals t;
  t.total = run.total_s;
  t.setup = run.setup_s;
  t.copy_ceiling = run.copy_ceiling_s;
  t.validation = run.validation_s;
  t.timing = run.timing_s;
  t.plans_ahead = run.plans_ahead;
  for (const ProblemPhases& p : problems) {
    t.prepare += p.prepare_s;
    t.draw += p.draw_s;
    t.reference += p.reference_s;
    t.audit_gather += p.audit_gather_s;
    t.audit_wait += p.audit_wait_s;
    t.upload += p.upload_s;
    t.timing_inputs += p.timing_inputs_s;
    t.compute_ceilings += p.ceiling_s;
    for (const PlanEvent& e : p.plans) {
      (e.hit() ? t.plan_load : t.plan_build) += e.seconds;
      ++(e.hit() ? t.plan_hits : t.plan_misses);
    }
  }
  for (const CasePhases& c : cases) {
    t.variants += c.validation_total();
    t.samples += c.timing_s;
    t.brackets += c.bracket_s;
    t.rechecks += c.recheck_s;
    t.launches += c.launches_s;
  }
  return t;
}

}  // namespace nb
