// The JSON report: schema fields, provenance first, derived metrics and flags, and a round trip
// through text.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/errors.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/report/json/report_json.hpp"
#include "harness/report/report_loading.hpp"
#include "harness/report/json/result_json.hpp"
#include "test_op.hpp"

namespace nb {
namespace {

TimingResult timing(double median_ms, double wall_ms) {
  TimingResult t;
  t.samples_ms = {median_ms * 0.99, median_ms, median_ms * 1.01};
  t.stats = summarize(t.samples_ms);
  t.wall_ms_per_launch = wall_ms;
  t.sm_clock_before_mhz = 1980;
  t.sm_clock_after_mhz = 1980;
  return t;
}

class ReportJson : public testing::Test {
 protected:
  void SetUp() override {
    const Problem large = op.make_problem({{"n", 1 << 26}});  // 512 MiB moved: far above L2
    record.provenance.gpu.name = "NVIDIA Test GPU";
    record.provenance.gpu.slug = "nvidia-test-gpu";
    record.provenance.gpu.l2_bytes = 50u << 20;
    record.ceiling.copy_gbps = 3000;
    record.ceiling.peak_gbps = 3350;
    record.ceiling.copy_cv = 0.01;
    for (const auto& v : op.variants()) record.cases.push_back({&op, v.get(), large, {"kb"}});
    record.outcomes.resize(3);
    for (auto& o : record.outcomes) {
      DistributionVerdict d;
      d.seeds = {1000, 1001, 1002};
      o.validation.distributions = {d};
      o.validation.conclude();
    }
    // 536.9 MB in 0.4 ms would be 1342 GB/s; naive 0.8 ms; the "library" 0.1 ms is 5.4 TB/s.
    record.outcomes[0].timing = timing(0.8, 0.8);
    record.outcomes[1].timing = timing(0.4, 0.4);
    record.outcomes[2].timing = timing(0.1, 0.1);
  }

  test::CopyOp op;
  RunRecord record;
};

TEST_F(ReportJson, DerivedMetricsSpeedupsAndFlags) {
  const auto m = compute_metrics(record);
  EXPECT_NEAR(*m[1].gbps, 8.0 * (1 << 26) / 0.4e-3 / 1e9, 1e-6);
  EXPECT_NEAR(*m[1].pct_of_copy, 100.0 * *m[1].gbps / 3000, 1e-9);
  EXPECT_NEAR(*m[1].speedup_vs_naive, 2.0, 1e-12);
  EXPECT_TRUE(m[2].has_flag(kFlagFasterThanLight));
  EXPECT_FALSE(m[1].timing_untrusted());
  EXPECT_FALSE(m[1].speedup_vs_baseline.has_value()) << "a faster-than-light baseline is no reference";
  record.outcomes[2].timing = timing(0.5, 0.5);  // a believable library time
  EXPECT_NEAR(*compute_metrics(record)[1].speedup_vs_baseline, 1.25, 1e-12);
  EXPECT_EQ(run_exit_status(record, m), kExitVerdictFailed);
}

TEST_F(ReportJson, WorkOnAnotherStreamIsFlaggedByTheWallBracket) {
  record.outcomes[1].timing = timing(0.01, 0.35);
  EXPECT_TRUE(compute_metrics(record)[1].has_flag(kFlagEscapesStream));
  EXPECT_FALSE(escapes_stream(0.4, 0.41, 0.005));
  EXPECT_FALSE(escapes_stream(0.002, 0.006, 0.004));  // launch overhead of a tiny kernel is not escape
  // A variant of several tiny kernels is bound by host submission: its wall time is explained.
  EXPECT_FALSE(escapes_stream(0.015, 0.0414, 0.040));
  EXPECT_TRUE(escapes_stream(0.0073, 0.0354, 0.0050));  // the same wall time with nothing to explain it
}

TEST(EventTimerCheck, TheGpuClockMayExceedTheEventsByTheStampsAlone) {
  EXPECT_FALSE(event_timer_disagrees(0.045, 0.052));   // a 45 us kernel and the stamps' few us
  EXPECT_FALSE(event_timer_disagrees(0.002, 0.015));   // a tiny kernel: the stamps dominate, within 20 us
  EXPECT_FALSE(event_timer_disagrees(10.0, 10.9));     // a long one: within 10%
  EXPECT_TRUE(event_timer_disagrees(0.001, 0.050));    // events report 1 us of a 45 us kernel
  EXPECT_TRUE(event_timer_disagrees(5.0, 10.0));       // half the GPU's time
}

TEST_F(ReportJson, AMisalignedRunSaysSoInItsSettings) {
  record.options.placement = TensorPlacement::misaligned;
  const auto j = build_report_json(record, compute_metrics(record));
  EXPECT_EQ(j["settings"]["tensor_placement"], "misaligned");
}

TEST_F(ReportJson, TheRowsInFlightSettingIsRecorded) {
  EXPECT_TRUE(build_report_json(record, compute_metrics(record))["settings"]["rows_in_flight"].is_null());
  record.options.rows_in_flight = 3;
  EXPECT_EQ(build_report_json(record, compute_metrics(record))["settings"]["rows_in_flight"], 3);
}

TEST_F(ReportJson, ClockDropIsThrottled) {
  record.outcomes[0].timing->sm_clock_after_mhz = 1500;
  EXPECT_TRUE(compute_metrics(record)[0].has_flag(kFlagThrottled));
}

TEST_F(ReportJson, SchemaFieldsProvenanceFirstAndRoundTrip) {
  record.outcomes[2].skip("cuDNN: CUDNN_STATUS_NOT_SUPPORTED");
  const auto metrics = compute_metrics(record);
  const auto j = build_report_json(record, metrics);
  EXPECT_EQ(j.begin().key(), "schema");
  EXPECT_EQ(std::next(j.begin(), 2).key(), "schema_minor_version");
  EXPECT_EQ(std::next(j.begin(), 3).key(), "provenance");
  const nlohmann::json parsed = nlohmann::json::parse(j.dump());
  EXPECT_NO_THROW(require_readable_report(parsed, "test"));
  EXPECT_EQ(parsed["schema_version"], kReportSchemaVersion);
  const auto& row = parsed["results"][1];
  for (const char* key : {"op", "variant", "kind", "idea", "problem", "params", "status", "disposition", "validation",
                          "timing", "bytes", "gbps", "pct_of_copy", "pct_of_peak", "flags", "speedup_vs_naive",
                          "reproduce", "profile", "nvtx_range"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(row["problem"], "copy_op/n67108864/fp32");
  EXPECT_EQ(parsed["settings"]["tensor_placement"], "aligned");
  // A memory-bound run: no GEMM ceilings, no TFLOP/s; the compute peaks are still recorded.
  EXPECT_TRUE(parsed["compute_ceilings"].is_array());
  EXPECT_TRUE(parsed["compute_ceilings"].empty());
  EXPECT_TRUE(row["tflops"].is_null());
  EXPECT_TRUE(row["pct_of_compute_ceiling"].is_null());
  EXPECT_TRUE(parsed["ceilings"]["compute_peak_tflops"]["tf32"].is_null()) << "the test GPU names no architecture";
  EXPECT_EQ(row["reproduce"], "normbench run --problem copy_op/n67108864/fp32 --variant fast");
  // ncu reads '/' in --nvtx-include as the separator of nested ranges: the range name has none.
  EXPECT_EQ(row["nvtx_range"], "copy_op fast n67108864 fp32");
  EXPECT_NE(row["profile"].get<std::string>().find("--nvtx-include \"normbench@copy_op fast n67108864 fp32/\""),
            std::string::npos);
  EXPECT_EQ(row["validation"]["per_distribution"][0]["seeds"].size(), 3u);
  EXPECT_DOUBLE_EQ(row["timing"]["median_ms"].get<double>(), 0.4);
  const auto& skipped = parsed["results"][2];
  EXPECT_EQ(skipped["status"], "skipped");
  EXPECT_EQ(skipped["skip_reason"], "cuDNN: CUDNN_STATUS_NOT_SUPPORTED");
  EXPECT_TRUE(skipped["timing"].is_null());
  EXPECT_EQ(parsed["summary"]["skipped"], 1);
  EXPECT_EQ(parsed["summary"]["exit_status"], 0) << parsed["summary"].dump();
}

// One form: a report row's validation and timing read back with the reader eval's parent uses
// for its worker's outcome, NaN and infinite errors included (JSON holds them as null).
TEST_F(ReportJson, ARowsValidationAndTimingReadBackAsAWorkersOutcomeDoes) {
  DistributionVerdict& d = record.outcomes[1].validation.distributions[0];
  d.passed = false;
  d.nonfinite_mismatch = 3;
  d.failure = "y: NaN/Inf placement differs";
  TensorErrors e;
  e.name = "y";
  e.elements = 64;
  e.normwise = std::numeric_limits<double>::infinity();
  e.worst_value = std::numeric_limits<double>::quiet_NaN();
  e.worst_reference = 2.5;
  e.first_mismatch = 7;
  e.nonfinite_mismatch = 3;
  e.bound = {2e-5, 3e-4, 1e-3, 0.0, 1e-2};
  d.tensors = {e};
  record.outcomes[1].validation.launch_ms_estimate = 0.25;
  record.outcomes[1].validation.conclude();
  const auto metrics = compute_metrics(record);
  const nlohmann::json row = nlohmann::json::parse(build_report_json(record, metrics).dump())["results"][1];

  const ValidationResult v = validation_result_from(row["validation"]);
  EXPECT_EQ(v.disposition, Disposition::incorrect);
  EXPECT_EQ(v.launch_ms_estimate, 0.25);
  ASSERT_EQ(v.distributions.size(), 1u);
  EXPECT_FALSE(v.distributions[0].passed);
  EXPECT_EQ(v.distributions[0].failure, d.failure);
  EXPECT_EQ(v.distributions[0].seeds, d.seeds);
  ASSERT_EQ(v.distributions[0].tensors.size(), 1u);
  const TensorErrors& back = v.distributions[0].tensors[0];
  EXPECT_EQ(back.elements, 64);
  EXPECT_TRUE(std::isnan(back.normwise)) << "an infinite error is null in JSON and reads back as NaN: still failing";
  EXPECT_TRUE(back.numeric_failure());
  EXPECT_TRUE(std::isnan(back.worst_value));
  EXPECT_EQ(back.worst_reference, 2.5);
  EXPECT_EQ(back.first_mismatch, 7);
  EXPECT_EQ(back.bound.ceiling, 1e-2);
  EXPECT_EQ(back.bound.floor_fraction, 1e-3);

  const TimingResult t = timing_result_from(row["timing"]);
  EXPECT_EQ(t.samples_ms, record.outcomes[1].timing->samples_ms);
  EXPECT_DOUBLE_EQ(t.stats.median, 0.4);
  EXPECT_EQ(t.sm_clock_before_mhz, 1980);
  EXPECT_FALSE(t.board) << "no NVML counters in the test's timing: null, read back as none";
}

// The board's window over the samples (minor 13): written, read back, and null in an older report.
TEST_F(ReportJson, TheBoardsWindowReadsBackAndIsNullInOlderReports) {
  BoardWindow board;
  board.window_ms = 120.5;
  board.avg_power_w = 655.0;
  board.power_capped_ms = 3.25;  // thermal_capped_ms not reported by the board
  record.outcomes[1].timing->board = board;
  nlohmann::json report = nlohmann::json::parse(build_report_json(record, compute_metrics(record)).dump());
  const nlohmann::json& written = report["results"][1]["timing"]["board"];
  EXPECT_EQ(written["window_ms"], 120.5);
  EXPECT_TRUE(written["thermal_capped_ms"].is_null());
  const TimingResult t = timing_result_from(report["results"][1]["timing"]);
  ASSERT_TRUE(t.board);
  EXPECT_DOUBLE_EQ(t.board->window_ms, 120.5);
  EXPECT_EQ(t.board->avg_power_w, 655.0);
  EXPECT_EQ(t.board->power_capped_ms, 3.25);
  EXPECT_FALSE(t.board->thermal_capped_ms);

  report["schema_minor_version"] = 12;
  for (auto& row : report["results"])
    if (row["timing"].is_object()) row["timing"].erase("board");
  fill_fields_of_newer_minors(report);
  EXPECT_TRUE(report["results"][1]["timing"].contains("board"));
  EXPECT_TRUE(report["results"][1]["timing"]["board"].is_null());
  EXPECT_FALSE(timing_result_from(report["results"][1]["timing"]).board);
}

}  // namespace
}  // namespace nb
