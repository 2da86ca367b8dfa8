// Compute-bound problems in the reports: TFLOP/s and % of the GEMM ceiling (compute_metrics),
// the faster-than-the-compute-peak flag, the compute peak table, the JSON fields and their round
// trip, the HTML and text-summary labels, compare's GEMM-ceiling context, fleet, and reports
// written before these fields still loading.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/cli/summary_table.hpp"
#include "harness/device/compute_peak.hpp"
#include "harness/errors.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/report/compare/compare_output.hpp"
#include "harness/report/compare/compare_runs.hpp"
#include "harness/report/fleet/fleet.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/report/json/report_json.hpp"
#include "harness/report/report_loading.hpp"
#include "report_test_support.hpp"
#include "test_op.hpp"

namespace nb {
namespace {

void no_launch(const Problem&, const DeviceTensors&, void*, cudaStream_t) {}

// y = x W (m x n, k deep) in fp32 or tf32: work enough to be compute-bound, no kernel.
class MatmulOp final : public OpSpec {
 public:
  MatmulOp() {
    add_variant(make_kernel_variant({"naive", "naive", "one thread per output", no_launch, nullptr, nullptr, {}}));
    add_variant(make_kernel_variant({"tiled", "smem", "shared-memory tiles", no_launch, nullptr, nullptr, {}}));
    add_variant(make_kernel_variant({"library", "cublas", "cuBLAS GEMM then the epilogue", no_launch, nullptr, nullptr, {}}));
  }
  std::string name() const override { return "matmul_op"; }
  std::string formula() const override { return "y = x W"; }
  std::vector<ParamDecl> param_decls() const override {
    return {{"m", true, 0, true, 1, 1e6, "rows"}, {"n", true, 0, true, 1, 1e6, "columns"}, {"k", true, 0, true, 1, 1e6, "depth"}};
  }
  std::vector<DType> dtypes() const override { return {DType::f32, DType::tf32}; }
  std::vector<NamedProblem> named_problems() const override {
    return {{{{"m", 4096}, {"n", 4096}, {"k", 4096}}, {"gemm"}, "square", {DType::f32, DType::tf32}}};
  }
  std::vector<TensorDecl> tensors(const Problem& p) const override {
    return {{"x", TensorRole::input, p.dim("m") * p.dim("k")},
            {"w", TensorRole::input, p.dim("k") * p.dim("n")},
            {"y", TensorRole::output, p.dim("m") * p.dim("n")}};
  }
  void draw_inputs(const Problem&, Distribution, std::uint64_t, HostTensors&) const override {}
  void reference(const Problem&, const HostTensors&, ReferenceTensors&) const override {}
  WorkModel work(const Problem& p) const override {
    const double m = p.dim("m"), n = p.dim("n"), k = p.dim("k");
    return {4.0 * (m * k + k * n + m * n), 2.0 * m * n * k, "read x, W, write y: 4 (mk + kn + mn)"};
  }
};

constexpr double kGemmFlops = 2.0 * 4096.0 * 4096.0 * 4096.0;  // 137.4 GFLOP

TimingResult timing(double median_ms) {
  TimingResult t;
  t.samples_ms = {median_ms * 0.995, median_ms, median_ms * 1.005};
  t.stats = summarize(t.samples_ms);
  t.wall_ms_per_launch = median_ms;
  return t;
}

SampleStats ceiling_stats(double median_ms) { return summarize({median_ms * 0.99, median_ms, median_ms * 1.01}); }

GpuInfo h100() {
  GpuInfo g;
  g.name = "NVIDIA H100 80GB HBM3";
  g.slug = "nvidia-h100-80gb-hbm3";
  g.compute_capability = "9.0";
  g.sm_count = 132;
  g.sm_clock_max_mhz = 1980;
  g.l2_bytes = 50u << 20;
  return g;
}

// tf32: naive 4 ms, tiled 0.5 ms, library 0.45 ms against a 0.4 ms GEMM ceiling; fp32: naive
// 30 ms and library 3 ms against a 2.8 ms ceiling.
class ReportCompute : public testing::Test {
 protected:
  void SetUp() override {
    record.provenance.gpu = h100();
    record.ceiling.copy_gbps = 3000;
    record.ceiling.peak_gbps = 3350;
    record.ceiling.copy_cv = 0.01;
    const Params shape{{"m", 4096}, {"n", 4096}, {"k", 4096}};
    tf32 = op.make_problem(shape, DType::tf32);
    fp32 = op.make_problem(shape, DType::f32);
    for (const auto& v : op.variants()) record.cases.push_back({&op, v.get(), tf32, {"gemm"}});
    record.cases.push_back({&op, op.find_variant("naive"), fp32, {"gemm"}});
    record.cases.push_back({&op, op.find_variant("library"), fp32, {"gemm"}});
    record.outcomes.resize(record.cases.size());
    for (auto& o : record.outcomes) {
      DistributionVerdict d;
      d.seeds = {1000, 1001, 1002};
      o.validation.distributions = {d};
      o.validation.conclude();
    }
    const double medians[] = {4.0, 0.5, 0.45, 30.0, 3.0};
    for (std::size_t i = 0; i < record.outcomes.size(); ++i) record.outcomes[i].timing = timing(medians[i]);
    record.compute_ceilings = {
        {tf32.id(), DType::tf32, "cublas_gemm_tf32", "cublasGemmEx alone, TF32", kGemmFlops, ceiling_stats(0.4)},
        {fp32.id(), DType::f32, "cublas_gemm_fp32", "cublasGemmEx alone, FP32", kGemmFlops, ceiling_stats(2.8)}};
  }

  MatmulOp op;
  Problem tf32, fp32;
  RunRecord record;
};

TEST(ComputePeak, ArchitectureTableTimesSmsTimesClock) {
  GpuInfo g = h100();
  EXPECT_NEAR(compute_peak_tflops(g, DType::tf32), 2048.0 * 132 * 1980e6 / 1e12, 1e-9);  // 535.3
  EXPECT_NEAR(compute_peak_tflops(g, DType::f32), 256.0 * 132 * 1980e6 / 1e12, 1e-9);    // 66.9
  g.compute_capability = "8.0";  // A100: 108 SMs at 1410 MHz, 156 TFLOP/s dense TF32 on the datasheet
  g.sm_count = 108;
  g.sm_clock_max_mhz = 1410;
  EXPECT_NEAR(compute_peak_tflops(g, DType::tf32), 155.9, 0.1);
  EXPECT_NEAR(compute_peak_tflops(g, DType::f32), 19.5, 0.1);
  EXPECT_EQ(flops_per_clock_per_sm("8.6", DType::tf32), 512);
  EXPECT_EQ(flops_per_clock_per_sm("8.9", DType::f32), 256);
  g.compute_capability = "7.0";
  EXPECT_EQ(compute_peak_tflops(g, DType::tf32), 0.0) << "an unknown architecture has no peak, so no check";
}

TEST_F(ReportCompute, ProblemIdsCarryTheDtype) {
  EXPECT_EQ(tf32.id(), "matmul_op/m4096_n4096_k4096/tf32");
  EXPECT_EQ(fp32.id(), "matmul_op/m4096_n4096_k4096/fp32");
}

TEST_F(ReportCompute, MetricsGiveTflopsAndPercentOfTheGemmCeiling) {
  const auto m = compute_metrics(record);
  ASSERT_TRUE(m[1].tflops && m[1].pct_of_compute_ceiling);
  EXPECT_NEAR(*m[1].tflops, kGemmFlops / 0.5e-3 / 1e12, 1e-9);  // 274.9
  EXPECT_NEAR(*m[1].pct_of_compute_ceiling, 80.0, 1e-9);         // 0.4 ms / 0.5 ms
  EXPECT_NEAR(*m[2].pct_of_compute_ceiling, 100.0 * 0.4 / 0.45, 1e-9);
  EXPECT_NEAR(*m[4].pct_of_compute_ceiling, 100.0 * 2.8 / 3.0, 1e-9) << "fp32 rows use the fp32 ceiling";
  EXPECT_NEAR(*m[3].tflops, kGemmFlops / 30e-3 / 1e12, 1e-9);
  EXPECT_NEAR(*m[1].speedup_vs_naive, 8.0, 1e-12);
  EXPECT_NEAR(*m[1].speedup_vs_baseline, 0.9, 1e-12);
  for (const auto& metrics : m) EXPECT_FALSE(metrics.timing_untrusted());
  EXPECT_EQ(run_exit_status(record, m), kExitOk);
}

TEST_F(ReportCompute, TfThirtyTwoRowWithoutNaiveTakesTheFp32ProblemsNaive) {
  record.outcomes[0].skip("computes in fp32");  // the tf32 naive declined, as the pipelines' do
  record.outcomes[0].timing.reset();
  const auto m = compute_metrics(record);
  ASSERT_TRUE(m[1].speedup_vs_naive.has_value());
  EXPECT_NEAR(*m[1].speedup_vs_naive, 30.0 / 0.5, 1e-12) << "the fp32 naive of the same shape";
  EXPECT_NEAR(*m[4].speedup_vs_naive, 10.0, 1e-12);
  record.outcomes[3].skip("not selected");  // no fp32 naive either: no speedup, no guess
  record.outcomes[3].timing.reset();
  EXPECT_FALSE(compute_metrics(record)[1].speedup_vs_naive.has_value());
}

TEST_F(ReportCompute, NoCeilingMeansNoComputeFields) {
  record.compute_ceilings.pop_back();  // the fp32 ceiling was not timed
  const auto m = compute_metrics(record);
  EXPECT_FALSE(m[3].tflops.has_value());
  EXPECT_FALSE(m[4].pct_of_compute_ceiling.has_value());
  EXPECT_TRUE(m[4].gbps.has_value());
  EXPECT_TRUE(m[1].pct_of_compute_ceiling.has_value());
}

TEST_F(ReportCompute, FasterThanTheComputePeakIsFlagged) {
  // 0.2 ms is 687 TFLOP/s: above the H100's 535 TFLOP/s dense TF32 peak, while its 1006 GB/s
  // is far below the copy ceiling, so only the compute check can see it.
  record.outcomes[1].timing = timing(0.2);
  auto m = compute_metrics(record);
  EXPECT_NEAR(*m[1].tflops, 687.2, 0.1);
  EXPECT_LT(*m[1].gbps, 3000.0);
  EXPECT_TRUE(m[1].has_flag(kFlagFasterThanLight));
  EXPECT_EQ(run_exit_status(record, m), kExitVerdictFailed);
  // 0.26 ms (529 TFLOP/s) is below the peak: believable.
  record.outcomes[1].timing = timing(0.26);
  EXPECT_FALSE(compute_metrics(record)[1].has_flag(kFlagFasterThanLight));
  // The peak is the problem's precision's: 1 ms in fp32 is 137 TFLOP/s, twice the 66.9 FFMA peak.
  record.outcomes[4].timing = timing(1.0);
  EXPECT_TRUE(compute_metrics(record)[4].has_flag(kFlagFasterThanLight));
  // Within noise (5%) of the peak is not flagged: 66.9 * 1.04 TFLOP/s.
  record.outcomes[4].timing = timing(kGemmFlops / (66.9 * 1.04e12) * 1e3);
  EXPECT_FALSE(compute_metrics(record)[4].has_flag(kFlagFasterThanLight));
  // An architecture the table does not know gets no compute check.
  record.outcomes[4].timing = timing(1.0);
  record.provenance.gpu.compute_capability = "7.0";
  EXPECT_FALSE(compute_metrics(record)[4].has_flag(kFlagFasterThanLight));
}

TEST_F(ReportCompute, JsonCarriesCeilingsPeaksAndRowFieldsAndRoundTrips) {
  record.outcomes[1].timing = timing(0.2);  // flagged
  const auto metrics = compute_metrics(record);
  const nlohmann::json j = nlohmann::json::parse(build_report_json(record, metrics).dump());
  EXPECT_NO_THROW(require_readable_report(j, "test"));
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["schema_minor_version"], kReportSchemaMinorVersion);
  EXPECT_NEAR(j["ceilings"]["compute_peak_tflops"]["tf32"].get<double>(), 535.26, 0.01);
  EXPECT_NEAR(j["ceilings"]["compute_peak_tflops"]["fp32"].get<double>(), 66.91, 0.01);
  EXPECT_EQ(j["ceilings"]["compute_peak_flops_per_clock_per_sm"]["tf32"], 2048.0);
  ASSERT_EQ(j["compute_ceilings"].size(), 2u);
  const auto& c = j["compute_ceilings"][0];
  EXPECT_EQ(c["problem"], "matmul_op/m4096_n4096_k4096/tf32");
  EXPECT_EQ(c["dtype"], "tf32");
  EXPECT_EQ(c["kernel"], "cublas_gemm_tf32");
  EXPECT_EQ(c["idea"], "cublasGemmEx alone, TF32");
  EXPECT_DOUBLE_EQ(c["flops"].get<double>(), kGemmFlops);
  EXPECT_NEAR(c["tflops"].get<double>(), kGemmFlops / 0.4e-3 / 1e12, 1e-9);  // 343.6
  EXPECT_NEAR(c["pct_of_compute_peak"].get<double>(), 100.0 * 343.597 / 535.26, 0.01);
  EXPECT_DOUBLE_EQ(c["median_ms"].get<double>(), 0.4);
  EXPECT_LT(c["p10_ms"].get<double>(), 0.4);
  EXPECT_GT(c["p90_ms"].get<double>(), 0.4);
  EXPECT_NEAR(c["cv"].get<double>(), 0.01, 1e-3);
  EXPECT_EQ(c["samples"], 3);
  const auto& tiled = j["results"][1];
  EXPECT_EQ(tiled["problem"], "matmul_op/m4096_n4096_k4096/tf32");
  EXPECT_EQ(tiled["dtype"], "tf32");
  EXPECT_EQ(tiled["reproduce"], "normbench run --problem matmul_op/m4096_n4096_k4096/tf32 --variant tiled");
  EXPECT_NEAR(tiled["tflops"].get<double>(), 687.19, 0.01);
  EXPECT_NEAR(tiled["pct_of_compute_ceiling"].get<double>(), 200.0, 1e-9);
  EXPECT_EQ(tiled["flags"], nlohmann::json::array({"faster_than_light"}));
  EXPECT_EQ(j["summary"]["flagged"], 1);
  EXPECT_NEAR(j["results"][4]["pct_of_compute_ceiling"].get<double>(), 100.0 * 2.8 / 3.0, 1e-9);
  // Through a file and back, the way html, compare and fleet read it.
  test::TempFolder folder;
  test::write_json(folder.file("report.json"), j);
  const nlohmann::json loaded = load_report_file(folder.file("report.json"));
  EXPECT_EQ(loaded["compute_ceilings"], j["compute_ceilings"]);
  EXPECT_EQ(loaded["results"][1]["tflops"], j["results"][1]["tflops"]);
  const std::string html = render_report_html(loaded);
  EXPECT_NE(html.find("% of GEMM ceiling: m4096_n4096_k4096 tf32"), std::string::npos);
  EXPECT_NE(html.find("GEMM ceiling (cublas_gemm_fp32)"), std::string::npos);
  EXPECT_NE(html.find("GEMM ceiling (cublas_gemm_tf32)"), std::string::npos);
}

TEST_F(ReportCompute, SummaryTableMarksGemmPercentAndListsTheCeilings) {
  std::ostringstream out;
  print_summary_table(record, compute_metrics(record), out);
  const std::string text = out.str();
  EXPECT_NE(text.find("% of GEMM ceiling"), std::string::npos);
  EXPECT_NE(text.find("GEMM ceilings"), std::string::npos);
  std::istringstream lines(text);
  std::string line, tiled, ceiling;
  while (std::getline(lines, line)) {
    if (line.rfind("matmul_op/m4096_n4096_k4096/tf32", 0) == 0 && line.find(" tiled ") != std::string::npos) tiled = line;
    if (line.find("cublas_gemm_tf32") != std::string::npos) ceiling = line;
  }
  EXPECT_NE(tiled.find("274.9"), std::string::npos) << tiled;      // TFLOP/s
  EXPECT_NE(tiled.find("80.0 gemm"), std::string::npos) << tiled;  // % of the GEMM ceiling, marked
  EXPECT_EQ(tiled.find("copy"), std::string::npos) << tiled;
  EXPECT_NE(ceiling.find("0.4000 ms"), std::string::npos) << ceiling;
  EXPECT_NE(ceiling.find("343.6 TFLOP/s"), std::string::npos) << ceiling;
  EXPECT_NE(ceiling.find("64.2% of the compute peak"), std::string::npos) << ceiling;
}

TEST(ReportComputeSummary, MemoryBoundRowsShowPercentOfCopy) {
  test::CopyOp op;
  RunRecord record;
  record.provenance.gpu = h100();
  record.ceiling.copy_gbps = 2000;
  record.ceiling.peak_gbps = 3350;
  record.cases.push_back({&op, op.find_variant("fast"), op.make_problem({{"n", 1 << 26}}), {"kb"}});  // 536.9 MB
  record.outcomes.resize(1);
  record.outcomes[0].timing = timing(0.5);  // 1073.7 GB/s: 53.7% of 2000
  std::ostringstream out;
  print_summary_table(record, compute_metrics(record), out);
  const std::string text = out.str();
  EXPECT_NE(text.find("53.7 copy"), std::string::npos) << text;
  EXPECT_NE(text.find("1073.7"), std::string::npos) << text;
  EXPECT_EQ(text.find("gemm"), std::string::npos) << text;
  EXPECT_EQ(text.find("GEMM"), std::string::npos) << text;
}

// The fixture run: gemm_rmsnorm (fp32 and tf32, GEMM ceilings) beside rmsnorm_rows.
class ReportComputeFixture : public testing::Test {
 protected:
  nlohmann::json report = test::load_fixture("report_fixture_gemm.json");
  std::string html = render_report_html(report);

  // The HTML of the op's section.
  std::string section(const std::string& op) const {
    std::size_t start = html.find("<section class=\"op\" id=\"op-" + op + "\">");
    if (start == std::string::npos) return "";
    return html.substr(start, html.find("</section>", start) - start);
  }
};

TEST_F(ReportComputeFixture, FixtureLoadsAndSaysItsMinorVersion) {
  const nlohmann::json loaded = load_report_file(test::fixture_path("report_fixture_gemm.json"));
  EXPECT_EQ(loaded["schema_minor_version"], 1);
  ASSERT_EQ(loaded["compute_ceilings"].size(), 2u);
  EXPECT_EQ(loaded["compute_ceilings"][1]["problem"], "gemm_rmsnorm/m4096_n4096_k4096/tf32");
  EXPECT_DOUBLE_EQ(loaded["compute_ceilings"][1]["tflops"].get<double>(), 381.0);
}

TEST_F(ReportComputeFixture, ComputeBoundSectionShowsTflopsAndPercentOfGemmCeiling) {
  const std::string gemm = section("gemm_rmsnorm"), rms = section("rmsnorm_rows");
  ASSERT_FALSE(gemm.empty());
  ASSERT_FALSE(rms.empty());
  EXPECT_NE(gemm.find("<th data-key=\"tflops\" data-numeric=\"1\" title=\"click to sort\">TFLOP/s</th>"), std::string::npos);
  EXPECT_NE(gemm.find(">% of GEMM ceiling</th>"), std::string::npos);
  EXPECT_EQ(gemm.find(">GB/s</th>"), std::string::npos) << "GB/s and TFLOP/s are not mixed in one table";
  EXPECT_EQ(gemm.find(">% of ceiling</th>"), std::string::npos);
  EXPECT_NE(rms.find(">GB/s</th>"), std::string::npos);
  EXPECT_NE(rms.find(">% of ceiling</th>"), std::string::npos);
  EXPECT_EQ(rms.find("GEMM"), std::string::npos);
  // tensor_core tf32: 352.6 TFLOP/s, 92.5% of the 0.3607 ms cublas_gemm_tf32 ceiling.
  EXPECT_NE(gemm.find("<td class=\"num\" data-sort=\"352.600000\">352.6</td>"), std::string::npos);
  EXPECT_NE(gemm.find("<span title=\"of the GEMM ceiling: cublas_gemm_tf32 0.3607 ms\">92.5%</span>"), std::string::npos);
  // Problems are labelled with their dtype when it is not fp32 (and may break after each '_').
  EXPECT_NE(gemm.find(">m4096_<wbr>n4096_<wbr>k4096 tf32</span>"), std::string::npos);
  EXPECT_NE(gemm.find(">m4096_<wbr>n4096_<wbr>k4096</span>"), std::string::npos);
}

TEST_F(ReportComputeFixture, BarChartsUseTheGemmCeilingForComputeBoundRows) {
  const std::string gemm = section("gemm_rmsnorm"), rms = section("rmsnorm_rows");
  EXPECT_NE(gemm.find("<h3>% of the GEMM ceiling (the library GEMM alone at the problem's precision), per problem</h3>"),
            std::string::npos);
  EXPECT_NE(gemm.find("% of GEMM ceiling: m4096_n4096_k4096 tf32"), std::string::npos);
  EXPECT_NE(gemm.find("GEMM ceiling (cublas_gemm_fp32)"), std::string::npos);
  EXPECT_EQ(gemm.find("% of copy ceiling"), std::string::npos);
  EXPECT_EQ(gemm.find("bandwidth against size"), std::string::npos);
  EXPECT_NE(rms.find("% of copy ceiling: m4096_n4096"), std::string::npos);
  // 1 copy-ceiling chart, 2 GEMM problems, 1 rmsnorm problem, 1 rmsnorm sweep chart.
  std::size_t svgs = 0;
  for (std::size_t at = html.find("<svg "); at != std::string::npos; at = html.find("<svg ", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 5u);
}

TEST_F(ReportComputeFixture, CeilingsSectionHasTheGemmCeilingsTable) {
  const std::size_t start = html.find("<section id=\"ceilings\">");
  ASSERT_NE(start, std::string::npos);
  const std::string ceilings = html.substr(start, html.find("</section>", start) - start);
  EXPECT_NE(ceilings.find("<h3>GEMM ceilings</h3>"), std::string::npos);
  EXPECT_NE(ceilings.find("fp32 66.9 TFLOP/s, tf32 535.3 TFLOP/s"), std::string::npos);
  EXPECT_NE(ceilings.find("<td>gemm_rmsnorm/m4096_n4096_k4096/tf32</td><td title=\"cublasGemmEx alone, tf32 compute, into its own "
                          "workspace\">cublas_gemm_tf32</td><td class=\"num\">0.3607</td>"),
            std::string::npos);
  EXPECT_NE(ceilings.find("<td class=\"num\">381.0</td><td class=\"num\">71.2% of 535.3</td>"), std::string::npos);
  EXPECT_NE(ceilings.find("<td class=\"num\">51.2</td><td class=\"num\">76.5% of 66.9</td>"), std::string::npos);
  EXPECT_NE(ceilings.find("compute-bound ops show \"% of GEMM ceiling\" instead"), std::string::npos);
}

TEST_F(ReportComputeFixture, RowFasterThanTheComputePeakIsMarked) {
  std::string needle = "data-variant=\"smem_tiled\" data-verdict=\"passed\" data-problem=\"gemm_rmsnorm/m4096_n4096_k4096/tf32\"";
  const std::size_t at = html.find(needle);
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(html.substr(html.rfind("<tr", at), at - html.rfind("<tr", at)).find("class=\"flag-ftl\""), std::string::npos);
  EXPECT_NE(html.find("beats the measured copy ceiling or the GPU&#39;s theoretical compute peak"), std::string::npos);
}

TEST_F(ReportComputeFixture, GemmCeilingStringsAreEscaped) {
  report["compute_ceilings"][0]["kernel"] = "<script>k</script>";
  report["compute_ceilings"][0]["idea"] = "\"><img src=x>";
  report["compute_ceilings"][0]["problem"] = "<b>p</b>";
  report["ceilings"]["compute_peak_tflops"] = {{"<i>x</i>", 1.0}};
  const std::string escaped = render_report_html(report);
  EXPECT_EQ(escaped.find("<script>k"), std::string::npos);
  EXPECT_EQ(escaped.find("<img"), std::string::npos);
  EXPECT_EQ(escaped.find("<b>p"), std::string::npos);
  EXPECT_EQ(escaped.find("<i>x"), std::string::npos);
  EXPECT_NE(escaped.find("&lt;script&gt;k&lt;/script&gt;"), std::string::npos);
}

TEST(ReportComputeOlderReports, LoadWithTheNewFieldsNull) {
  const nlohmann::json old = load_report_file(test::fixture_path("report_fixture.json"));
  EXPECT_EQ(old["schema_minor_version"], 0);
  EXPECT_TRUE(old["compute_ceilings"].is_array());
  EXPECT_TRUE(old["compute_ceilings"].empty());
  EXPECT_TRUE(old["ceilings"]["compute_peak_tflops"].is_null());
  for (const auto& row : old["results"]) {
    EXPECT_TRUE(row["tflops"].is_null());
    EXPECT_TRUE(row["pct_of_compute_ceiling"].is_null());
  }
  EXPECT_DOUBLE_EQ(old["ceilings"]["copy_gbps"].get<double>(), 2905.0) << "fields it has are kept";
  const std::string html = render_report_html(old);
  EXPECT_EQ(html.find("GEMM"), std::string::npos);
  EXPECT_EQ(html.find("TFLOP/s"), std::string::npos);
}

TEST(ReportComputeOlderReports, NewerMinorOfTheSameMajorStillLoads) {
  test::TempFolder folder;
  nlohmann::json later = test::load_fixture("report_fixture_gemm.json");
  later["schema_minor_version"] = kReportSchemaMinorVersion + 5;
  later["a_field_from_the_future"] = {1, 2, 3};
  test::write_json(folder.file("later.json"), later);
  EXPECT_NO_THROW(load_report_file(folder.file("later.json")));
}

const ComparedRow* find_compared(const Comparison& c, const std::string& variant, const std::string& problem) {
  for (const ComparedRow& row : c.rows)
    if (row.variant == variant && row.problem == problem) return &row;
  return nullptr;
}

TEST(ReportComputeCompare, Tf32AndFp32RowsPairApartAndAMovedCeilingIsContext) {
  const nlohmann::json base = test::load_fixture("report_fixture_gemm.json");
  nlohmann::json candidate = base;
  test::result_row(candidate, "tensor_core", "m4096_n4096_k4096")["timing"]["median_ms"] =
      base["results"][4]["timing"]["median_ms"].get<double>() * 1.10;
  auto& ceiling = candidate["compute_ceilings"][1];
  for (const char* key : {"median_ms", "p10_ms", "p90_ms"}) ceiling[key] = ceiling[key].get<double>() * 1.15;
  Comparison c = compare_reports(base, candidate);
  EXPECT_EQ(c.rows.size(), 9u);
  const ComparedRow* tf32 = find_compared(c, "naive", "gemm_rmsnorm/m4096_n4096_k4096/tf32");
  const ComparedRow* fp32 = find_compared(c, "naive", "gemm_rmsnorm/m4096_n4096_k4096/fp32");
  ASSERT_TRUE(tf32 && fp32);
  EXPECT_EQ(tf32->change, TimingChange::Same);
  EXPECT_NE(*tf32->base_median_ms, 0.0);
  const ComparedRow* slower = find_compared(c, "tensor_core", "gemm_rmsnorm/m4096_n4096_k4096/tf32");
  ASSERT_TRUE(slower);
  EXPECT_EQ(slower->change, TimingChange::Slower);
  EXPECT_NEAR(*slower->ratio, 1.10, 1e-9);
  ASSERT_EQ(c.context.size(), 1u);
  EXPECT_NE(c.context[0].find("GEMM ceiling of gemm_rmsnorm/m4096_n4096_k4096/tf32 (cublas_gemm_tf32) 0.3607 -> 0.4148 ms (+15.0%"),
            std::string::npos)
      << c.context[0];
  EXPECT_NE(render_compare_text(c, std::nullopt).find("context: GEMM ceiling of"), std::string::npos);
  EXPECT_EQ(compare_to_json(c, std::nullopt)["context"].size(), 1u);
  EXPECT_TRUE(compare_reports(base, base).context.empty());
  // A report without compute ceilings on one side compares without context.
  Comparison mixed = compare_reports(test::load_fixture("report_fixture.json"), base);
  EXPECT_TRUE(mixed.context.empty());
  EXPECT_EQ(find_compared(mixed, "smem_tiled", "gemm_rmsnorm/m4096_n4096_k4096/tf32")->change, TimingChange::Added);
}

TEST(ReportComputeFleet, BestVariantIsJudgedAgainstItsOwnGemmCeiling) {
  const nlohmann::json report = test::load_fixture("report_fixture_gemm.json");
  auto best = best_passing_variant(rows_where(all_results(report), "problem", "gemm_rmsnorm/m4096_n4096_k4096/tf32"), report,
                                   ComputeCeilings(report));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->variant, "tensor_core") << "smem_tiled is faster but flagged faster than light";
  EXPECT_TRUE(best->compute_bound);
  EXPECT_DOUBLE_EQ(*best->pct_of_own_ceiling(), 92.5);
  EXPECT_DOUBLE_EQ(*best->tflops, 352.6);
  auto memory = best_passing_variant(rows_where(all_results(report), "problem", "rmsnorm_rows/m4096_n4096/fp32"), report,
                                     ComputeCeilings(report));
  ASSERT_TRUE(memory);
  EXPECT_FALSE(memory->compute_bound);
  EXPECT_EQ(memory->pct_of_own_ceiling(), memory->pct_of_copy);
  const std::string html = render_fleet_html(label_fleet_runs(
      {{"gemm.json", report}, {"old.json", test::load_fixture("report_fixture_other_gpu.json")}}));
  EXPECT_NE(html.find("<b>tensor_core</b> 92.5% of GEMM ceiling"), std::string::npos);
  EXPECT_NE(html.find("352.6 TFLOP/s"), std::string::npos);
  EXPECT_NE(html.find("gemm_rmsnorm m4096_n4096_k4096 tf32: best passing variant, % of own GEMM ceiling"), std::string::npos);
}

}  // namespace
}  // namespace nb
