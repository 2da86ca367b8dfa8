#include "harness/errors.hpp"
#include "harness/report/html_escape.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/report/report_format.hpp"
#include "report_test_support.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace nb {
namespace {

using test::load_fixture;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

// The opening <tr ...> tag of the row for (variant, problem id).
std::string row_tag(const std::string& html, const std::string& variant, const std::string& problem) {
  std::string needle = "data-variant=\"" + variant + "\"";
  for (std::size_t at = html.find(needle); at != std::string::npos; at = html.find(needle, at + 1)) {
    std::size_t start = html.rfind("<tr", at), end = html.find('>', at);
    std::string tag = html.substr(start, end - start + 1);
    if (tag.find("data-problem=\"" + problem + "\"") != std::string::npos) return tag;
  }
  return "";
}

class ReportHtml : public ::testing::Test {
 protected:
  nlohmann::json report = load_fixture("report_fixture.json");
  std::string html = render_report_html(report);
};

// Speedups keep three significant digits however small: a naive kernel 550x slower than the
// library reads 0.00182x, not 0.00x; large ones carry no exponent.
TEST(ReportFormat, RatiosKeepThreeSignificantDigits) {
  EXPECT_EQ(format_ratio(0.0018234), "0.00182");
  EXPECT_EQ(format_ratio(0.5), "0.500");
  EXPECT_EQ(format_ratio(1.5432), "1.54");
  EXPECT_EQ(format_ratio(25.43), "25.4");
  EXPECT_EQ(format_ratio(1059.3), "1059");
  EXPECT_EQ(format_ratio(0.0), "0.00");
}

// A huge value from a broken or hostile report reads in exponent form, not as 63 digits cut off
// by the buffer.
TEST(ReportFormat, HugeValuesReadInExponentForm) {
  EXPECT_EQ(format_fixed(1e308, 1), "1.000e+308");
  EXPECT_EQ(format_fixed(-1e308, 0), "-1.000e+308");
  EXPECT_EQ(format_ratio(1e308), "1.000e+308");
  EXPECT_EQ(format_ms(1e300), "1.000e+300");
  EXPECT_LT(format_bytes(1e308).size(), 20u) << format_bytes(1e308);
  EXPECT_EQ(format_fixed(123456789012345.0, 1), "123456789012345.0");
  EXPECT_EQ(format_fixed(2.5, 2), "2.50");
  nlohmann::json report = load_fixture("report_fixture.json");
  report["results"][0]["gbps"] = 1e308;
  report["results"][0]["timing"]["median_ms"] = 1e308;
  const std::string page = render_report_html(report);
  EXPECT_NE(page.find("1.000e+308"), std::string::npos);
  EXPECT_EQ(page.find("1000000000000000000000"), std::string::npos) << "a number printed as dozens of digits";
}

// A failed row says why in its own text, not only in a tooltip.
TEST_F(ReportHtml, AFailedRowShowsItsFailureMessage) {
  const std::string failure = "y: 96 elements Inf where the reference is finite";
  const std::string without_titles = std::regex_replace(html, std::regex(R"( title="[^"]*")"), "");
  EXPECT_NE(without_titles.find("wide: " + failure), std::string::npos);
  nlohmann::json broken = report;
  for (auto& row : broken["results"])
    for (auto& d : row["validation"]["per_distribution"])
      if (d["distribution"] == "uniform01") {
        d["verdict"] = "incorrect", d["failure"] = "normwise error 3.1e-01 > bound 1.0e-05 <b>";
        row["disposition"] = "incorrect";
        break;
      }
  const std::string page = std::regex_replace(render_report_html(broken), std::regex(R"( title="[^"]*")"), "");
  EXPECT_NE(page.find("uniform01: normwise error 3.1e-01 &gt; bound 1.0e-05 &lt;b&gt;"), std::string::npos);
}

// What the board did over a row's samples reads in its details; an older report's rows (no
// timing.board) say nothing of it.
TEST_F(ReportHtml, TheBoardsWindowReadsInTheRowsDetails) {
  EXPECT_EQ(html.find("board over the samples"), std::string::npos);
  nlohmann::json with_board = report;
  with_board["results"][0]["timing"]["board"] = {
      {"window_ms", 118.4}, {"avg_power_w", 655.2}, {"power_capped_ms", 3.31}, {"thermal_capped_ms", nullptr}};
  const std::string page = render_report_html(with_board);
  EXPECT_NE(page.find("board over the samples (118 ms): 655 W mean, clocks held by the power cap 3.3 ms, by heat "
                      "not reported"),
            std::string::npos);
  EXPECT_EQ(count_of(page, "board over the samples"), 1u);
}

TEST_F(ReportHtml, EveryResultRowAppearsOnce) {
  ASSERT_EQ(report["results"].size(), 24u);
  EXPECT_EQ(count_of(html, "<tr class=") + count_of(html, "<tr data-op="), report["results"].size());
  for (const auto& row : report["results"]) {
    std::string tag = row_tag(html, row["variant"], row["problem"]);
    EXPECT_FALSE(tag.empty()) << row["variant"] << " " << row["problem"];
    EXPECT_NE(tag.find("data-op=\"" + row["op"].get<std::string>() + "\""), std::string::npos);
  }
}

TEST_F(ReportHtml, FailedAndFlaggedRowsCarryTheirFailureClass) {
  EXPECT_NE(row_tag(html, "smem", "rmsnorm_rows/m32768_n8192/fp32").find("class=\"fail-incorrect fail-unwritten\""), std::string::npos);
  EXPECT_NE(row_tag(html, "vector", "rmsnorm_rows/m4096_n4096/fp32").find("class=\"flag-ftl\""), std::string::npos);
  EXPECT_NE(row_tag(html, "naive", "rmsnorm_rows/m32768_n4096/fp32").find("class=\"flag-throttled\""), std::string::npos);
  EXPECT_NE(row_tag(html, "cudnn", "groupnorm/n112_c64_h512_w512_g8/fp32").find("class=\"skipped\""), std::string::npos);
  EXPECT_NE(row_tag(html, "fused_affine", "groupnorm/n112_c64_h512_w512_g8/fp32").find("class=\"error\""), std::string::npos);
  std::string clean = row_tag(html, "warp", "rmsnorm_rows/m4096_n4096/fp32");
  ASSERT_FALSE(clean.empty());
  EXPECT_EQ(clean.find("class="), std::string::npos);
}

TEST_F(ReportHtml, StreamEscapingRowCarriesFlagEscapes) {
  nlohmann::json flagged = report;
  test::result_row(flagged, "warp", "m512_n4096")["flags"] = {"escapes_stream"};
  EXPECT_NE(row_tag(render_report_html(flagged), "warp", "rmsnorm_rows/m512_n4096/fp32").find("flag-escapes"), std::string::npos);
}

TEST_F(ReportHtml, ShowsSkipReasonVerdictChipsAndCommands) {
  EXPECT_NE(html.find(html_escape(test::result_row(report, "cudnn", "n112_c64_h512_w512_g8")["skip_reason"].get<std::string>())),
            std::string::npos);
  EXPECT_NE(html.find("wide \u2717(not claimed)"), std::string::npos);
  EXPECT_NE(html.find("uniform01 \u2713"), std::string::npos);
  EXPECT_NE(html.find("8192 unwritten"), std::string::npos);
  const auto& row = test::result_row(report, "warp", "m4096_n4096");
  EXPECT_NE(html.find(html_escape(row["profile"].get<std::string>())), std::string::npos);
  EXPECT_NE(html.find(html_escape(row["reproduce"].get<std::string>())), std::string::npos);
  EXPECT_NE(html.find("<details>"), std::string::npos);
}

TEST_F(ReportHtml, ProvenanceAndCeilingsComeFirst) {
  std::size_t first_table = html.find("<table");
  for (const char* fact : {"NVIDIA H100 80GB HBM3", "132", "50 MiB", "580.95.05", "13.1.0", "9.14.0", "2619 MHz",
                           "1a2b3c4d5e6f708192a3b4c5d6e7f80912345678", "2905 GB/s", "3352 GB/s", "86.7%"}) {
    std::size_t at = html.find(fact);
    EXPECT_NE(at, std::string::npos) << fact;
    EXPECT_LT(at, first_table) << fact;
  }
}

TEST_F(ReportHtml, HasBarChartsPerProblemAndTheSweepChart) {
  // 1 ceilings chart + 5 rmsnorm problems + 2 groupnorm problems + 1 sweep chart.
  EXPECT_EQ(count_of(html, "<svg "), 9u);
  std::size_t sweep = html.find("bandwidth against size (sweep suite)");
  ASSERT_NE(sweep, std::string::npos);
  std::string sweep_svg = html.substr(sweep, html.find("</svg>", sweep) - sweep);
  EXPECT_NE(sweep_svg.find("class=\"l2\""), std::string::npos);
  EXPECT_NE(sweep_svg.find("L2 50 MiB"), std::string::npos);
  EXPECT_NE(sweep_svg.find("copy ceiling 2905 GB/s"), std::string::npos);
  EXPECT_EQ(count_of(sweep_svg, "<polyline"), 3u);  // naive, warp, vector
  EXPECT_EQ(count_of(sweep_svg, "<circle"), 12u);   // 4 sizes each
}

TEST_F(ReportHtml, HasFiltersAndTheReadyMarkerScript) {
  EXPECT_NE(html.find("data-filter=\"op\""), std::string::npos);
  EXPECT_NE(html.find("data-filter=\"variant\""), std::string::npos);
  EXPECT_NE(html.find("data-filter=\"verdict\""), std::string::npos);
  EXPECT_NE(html.find("document.body.dataset.ready"), std::string::npos);
}

TEST(ReportHtmlEscaping, EveryStringFromTheReportIsEscaped) {
  nlohmann::json report = load_fixture("report_fixture.json");
  nlohmann::json& row = test::result_row(report, "warp", "m4096_n4096");
  row["idea"] = "<script>alert('idea')</script>";
  row["problem_name"] = "<b>bold</b>";
  row["reproduce"] = "normbench run --op \"x\" && <rm>";
  report["provenance"]["command_line"] = "<img src=x onerror=alert(1)>";
  report["provenance"]["gpu"]["name"] = "GPU & <i>co</i>";
  test::result_row(report, "cudnn", "n112_c64_h512_w512_g8")["skip_reason"] = "<svg onload=alert(2)>";
  std::string html = render_report_html(report);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<i>co"), std::string::npos);
  EXPECT_EQ(html.find("<svg onload"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;idea&#39;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("normbench run --op &quot;x&quot; &amp;&amp; &lt;rm&gt;"), std::string::npos);
  EXPECT_NE(html.find("GPU &amp; &lt;i&gt;co&lt;/i&gt;"), std::string::npos);
}

TEST(ReportHtmlEscaping, HtmlEscapeCoversAllFiveCharacters) {
  EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST_F(ReportHtml, FetchesNothing) {
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  std::regex external(R"((src|href)\s*=\s*["']?\s*(https?:)?//)", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, external));
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

TEST(ReportHtmlRobustness, NullFieldsRenderAsDashes) {
  nlohmann::json report = load_fixture("report_fixture.json");
  report["provenance"]["cudnn_version"] = nullptr;
  report["ceilings"]["copy_gbps"] = nullptr;
  test::result_row(report, "warp", "m4096_n4096")["timing"] = nullptr;
  std::string html = render_report_html(report);
  EXPECT_NE(html.find("<dt>cuDNN</dt><dd>\u2014"), std::string::npos);
  EXPECT_NE(html.find("Measured device-to-device copy: <b>\u2014</b>"), std::string::npos);
}

TEST(ReportHtmlPlacement, AMisalignedRunSaysSoAtTheTopAndAnAlignedOneSaysNothing) {
  nlohmann::json report = load_fixture("report_fixture.json");
  EXPECT_EQ(render_report_html(report).find("Misaligned tensors"), std::string::npos);
  report["settings"]["tensor_placement"] = "misaligned";
  const std::string html = render_report_html(report);
  const std::size_t note = html.find("<b>Misaligned tensors:</b>");
  ASSERT_NE(note, std::string::npos);
  EXPECT_LT(note, html.find("class=\"summary\"")) << "before the summary of the verdicts";
}

TEST(ReportHtmlRobustness, RefusesAReportWithoutResults) {
  EXPECT_THROW(render_report_html(nlohmann::json{{"schema", "normbench.report"}}), UsageError);
}

}  // namespace
}  // namespace nb

namespace nb {
namespace {

TEST(ReportHtmlRobustness, RobustToColumnNamesThePassedStressDistributions) {
  nlohmann::json report = test::load_fixture("report_fixture.json");
  nlohmann::json* ran = nullptr;
  for (auto& row : report["results"])
    if (row.value("status", "") == "ran" && row["validation"].is_object()) ran = &row;
  ASSERT_NE(ran, nullptr);
  (*ran)["validation"]["robust_to"] = {"offset", "tiny_var"};
  const std::string html = render_report_html(report);
  EXPECT_NE(html.find(">robust to<"), std::string::npos);
  EXPECT_NE(html.find("offset, tiny_var"), std::string::npos);
}

}  // namespace
}  // namespace nb
