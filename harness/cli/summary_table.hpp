#pragma once
// The short table printed at the end of a run: one line per case, failures and flags visible.
#include <iosfwd>
#include <vector>

#include "harness/report/case_metrics.hpp"

namespace nb {

void print_summary_table(const RunRecord& record, const std::vector<CaseMetrics>& metrics, std::ostream& out);

// A few lines at the very end: the run's seconds by phase (harness/run/phase_times.hpp).
void print_phase_breakdown(const PhaseTotals& t, std::ostream& out);

}  // namespace nb
