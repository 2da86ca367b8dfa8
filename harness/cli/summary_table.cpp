#include "harness/cli/summary_table.hpp"

#include <cstdio>
#include <ostream>

namespace nb {
namespace {

std::string fixed(const std::optional<double>& value, int decimals, const char* suffix = "") {
  if (!value) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f%s", decimals, *value, suffix);
  return text;
}

// The reported disposition, then each failed distribution ("!offset(stress)") and each fragile one
// with its error over the bound ("fragile:wide=53x").
std::string verdicts(const CaseOutcome& o, const CaseMetrics& m) {
  if (o.status != CaseStatus::ran) return case_status_name(o.status);
  std::string s = disposition_name(reported_disposition(o, m));
  for (const auto& d : o.validation.distributions)
    if (!d.passed) s += " !" + distribution_name(d.distribution) + (d.counts || d.hard_failed ? "" : "(stress)");
  for (const StressExcess& e : o.validation.fragile())
    s += " fragile:" + distribution_name(e.distribution) + "=" + fixed(e.share_of_bound, 1, "x");
  return s;
}

std::string flags(const CaseMetrics& m) {
  std::string s;
  for (const auto& f : m.flags) s += (s.empty() ? "" : ",") + f;
  return s;
}

// "% ceil": % of the copy ceiling for a memory-bound case, % of its problem's GEMM ceiling
// (marked "gemm") for a compute-bound one; never the two mixed unmarked.
std::string percent_of_ceiling(const CaseMetrics& m, bool compute_bound) {
  return compute_bound ? fixed(m.pct_of_compute_ceiling, 1, " gemm") : fixed(m.pct_of_copy, 1, " copy");
}

void print_gemm_ceilings(const RunRecord& r, std::ostream& out) {
  if (r.compute_ceilings.empty()) return;
  char line[512];
  out << "GEMM ceilings (the library GEMM alone at the problem's precision):\n";
  for (const ComputeCeiling& c : r.compute_ceilings) {
    std::snprintf(line, sizeof line, "  %-52s %-22s %10.4f ms %8.1f TFLOP/s  %s of the compute peak\n",
                  c.problem_id.c_str(), c.kernel.c_str(), c.stats.median, c.tflops(),
                  fixed(pct_of_compute_peak(r, c), 1, "%").c_str());
    out << line;
  }
}

}  // namespace

void print_summary_table(const RunRecord& r, const std::vector<CaseMetrics>& metrics, std::ostream& out) {
  char line[512];
  std::snprintf(line, sizeof line, "\ncopy ceiling %.0f GB/s (peak %.0f GB/s)\n", r.ceiling.copy_gbps, r.ceiling.peak_gbps);
  out << line;
  print_gemm_ceilings(r, out);
  out << (r.compute_ceilings.empty() ? "% ceil: % of the copy ceiling\n"
                                     : "% ceil: % of the copy ceiling (\"copy\"), or for compute-bound problems % of GEMM "
                                       "ceiling (\"gemm\": the GEMM ceiling's median over the case's)\n");
  std::snprintf(line, sizeof line, "%-52s %-10s %10s %9s %8s %11s  %s\n", "problem", "variant", "median ms", "GB/s",
                "TFLOP/s", "% ceil", "verdict / flags");
  out << line;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& c = r.cases[i];
    const auto& o = r.outcomes[i];
    const auto& m = metrics[i];
    const bool timed = o.timing && !o.timing->samples_ms.empty();
    const bool compute_bound = r.compute_ceiling_of(c.problem.id()) != nullptr;
    std::snprintf(line, sizeof line, "%-52s %-10s %10s %9s %8s %11s  %s %s\n", c.problem.id().c_str(),
                  c.variant->name().c_str(), timed ? fixed(o.timing->stats.median, 4).c_str() : "-",
                  fixed(m.gbps, 1).c_str(), fixed(m.tflops, 1).c_str(), percent_of_ceiling(m, compute_bound).c_str(),
                  verdicts(o, m).c_str(), flags(m).c_str());
    out << line;
    if (o.status != CaseStatus::ran) out << "    " << o.reason << "\n";
  }
}

void print_phase_breakdown(const PhaseTotals& t, std::ostream& out) {
  char line[512];
  std::snprintf(line, sizeof line,
                "where the time went: %.1f s in all; set-up %.1f, copy ceiling %.1f, other %.1f\n"
                "  validation %7.1f s: prepare %.1f, draw %.1f, reference %.1f, audit %.1f (copies %.1f, wait %.1f), "
                "uploads %.1f, variants %.1f, launches recorded %.1f\n"
                "    prepare's library plans: %d built or refused in %.1f s, %d loaded from the plan cache in %.1f s\n"
                "  timing     %7.1f s: buffers %.1f, GEMM ceilings %.1f, samples %.1f, brackets %.1f, rechecks %.1f\n",
                t.total, t.setup, t.copy_ceiling, t.other(), t.validation, t.prepare, t.draw, t.reference, t.audit(),
                t.audit_gather, t.audit_wait, t.upload, t.variants, t.launches, t.plan_misses, t.plan_build, t.plan_hits,
                t.plan_load, t.timing, t.timing_inputs, t.compute_ceilings, t.samples, t.brackets, t.rechecks);
  out << line;
  const PlanAheadStats& a = t.plans_ahead;
  if (a.tasks == 0) return;
  std::snprintf(line, sizeof line,
                "    library plans built ahead beside it: %d of %d on %d threads in %.1f s (busy %.1f s; prepare waited "
                "%.1f s for them; %d taken back, %d failed)\n",
                a.planned, a.tasks, a.threads, a.wall_s, a.busy_s, a.waited_s, a.taken_back, a.failed);
  out << line;
}

}  // namespace nb
