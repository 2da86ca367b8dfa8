#include <algorithm>
#include <ostream>

#include "harness/cli/benchmark_flags.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/slowest.hpp"
#include "harness/cli/summary_table.hpp"
#include "harness/errors.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/report/json/report_json.hpp"
#include "harness/report/report_writer.hpp"
#include "harness/run/interrupt.hpp"

namespace nb {

int run_command(const Registry& registry, const RunCommand& c, std::ostream& out) {
  std::vector<RunCase> cases = select_cases(registry, c.selection);
  for (const auto& a : c.benchmark_args)
    if (a.rfind("--benchmark_", 0) != 0) throw UsageError("unrecognised argument '" + a + "'");
  // An unwritable --out is found now, not after the whole run, when the report would be lost.
  if (!c.options.profile) check_folder_writable(c.out_root, "the --out folder");
  if (!c.options.validate_only && !c.options.profile) initialise_benchmark(c.program, c.benchmark_args);
  install_interrupt_handlers();
  RunRecord record = run_cases(std::move(cases), c.options);
  if (c.options.profile) {
    out << "profiled " << record.cases.size() << " case(s): one launch each inside its NVTX range\n";
    return kExitOk;
  }
  const std::vector<CaseMetrics> metrics = compute_metrics(record);
  print_summary_table(record, metrics, out);
  const std::string path = write_run_report(build_report_json(record, metrics), c.out_root, c.run_id);
  if (record.interrupted || !record.aborted.empty()) {
    const auto not_run = std::count_if(record.outcomes.begin(), record.outcomes.end(),
                                       [](const CaseOutcome& o) { return o.status == CaseStatus::not_run; });
    out << (record.interrupted ? std::string("interrupted") : "aborted: " + record.aborted) << "; " << not_run
        << " case(s) not run; partial report written\n";
  }
  out << "report: " << path << "\n";
  print_phase_breakdown(record.phase_totals(), out);
  print_slowest(record, out);
  return run_exit_status(record, metrics);
}

}  // namespace nb
