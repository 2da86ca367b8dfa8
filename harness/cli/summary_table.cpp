#include "harness/cli/summary_table.hpp"

#include <cstdio>
#include <ostream>

namespace nb {
namespace {

std::string verdicts(const CaseOutcome& o) {
  if (o.status != CaseStatus::ran) return case_status_name(o.status);
  std::string s = disposition_name(o.validation.disposition);
  for (const auto& d : o.validation.distributions)
    if (!d.passed) s += " !" + distribution_name(d.distribution) + (d.counts ? "" : "(stress)");
  return s;
}

std::string flags(const CaseMetrics& m) {
  std::string s;
  for (const auto& f : m.flags) s += (s.empty() ? "" : ",") + f;
  return s;
}

}  // namespace

void print_summary_table(const RunRecord& r, const std::vector<CaseMetrics>& metrics, std::ostream& out) {
  char line[512];
  std::snprintf(line, sizeof line, "\ncopy ceiling %.0f GB/s (peak %.0f GB/s)\n%-52s %-10s %10s %9s %7s  %s\n",
                r.ceiling.copy_gbps, r.ceiling.peak_gbps, "problem", "variant", "median ms", "GB/s", "%copy",
                "verdict / flags");
  out << line;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& c = r.cases[i];
    const auto& o = r.outcomes[i];
    const auto& m = metrics[i];
    const bool timed = o.timing && !o.timing->samples_ms.empty();
    std::snprintf(line, sizeof line, "%-52s %-10s %10.4f %9.1f %7.1f  %s %s\n", c.problem.id().c_str(),
                  c.variant->name().c_str(), timed ? o.timing->stats.median : 0.0, m.gbps.value_or(0.0),
                  m.pct_of_copy.value_or(0.0), verdicts(o).c_str(), flags(m).c_str());
    out << line;
    if (o.status != CaseStatus::ran) out << "    " << o.reason << "\n";
  }
}

}  // namespace nb
