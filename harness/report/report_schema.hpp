#pragma once
// The report's schema name and version (docs/report-schema.md), shared by writer and readers.
namespace nb {

inline constexpr const char* kReportSchema = "normbench.report";
// The major version: readers refuse a newer one. The minor version counts additions a reader of
// the same major version may ignore (1: compute ceilings, TFLOP/s, compute peaks; 2: external
// candidates per row, validation.after_timing, the allocates_in_launch flag; 3: interrupted,
// aborted and not_run[] of a partial run, the not_run status and not_run_reason; 4: phases, the run's and
// each row's seconds by phase; 5: the inconclusive and flagged dispositions, validation.fragile and
// inconclusive_checks, each check's bound, ceiling and share of it, settings.strict; the library plans
// built and loaded in the phases, settings.plan_cache; flag_notes, timing.output_check and
// timing.device_ms_per_sample, validation.hidden_shape, the flags timed_output_mismatch,
// persisting_l2, event_timer_mismatch and forged_result, containment forged; the audit's phase
// split in two, settings.slow_launch_ms; 6: one JSON form for a case's validation and timing;
// 7: phases.validation.plans_ahead; 8: validation.operand_amplification; 9: the bf16 compute peak,
// bf16 GEMM pipeline problems; 10: settings.tensor_placement; 11: settings.rows_in_flight; 12: launches
// per row, the kernels of one untimed launch recorded by CUPTI, and phases' launches_s; 13:
// timing.board, the board's mean power and clock caps over the samples); a report without
// schema_minor_version is minor 0.
inline constexpr int kReportSchemaVersion = 1;
inline constexpr int kReportSchemaMinorVersion = 13;

}  // namespace nb
