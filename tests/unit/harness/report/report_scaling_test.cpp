// html and fleet render a report of 20k rows in well under a second: the rows are grouped by op,
// problem and variant once, never scanned once per distinct value (that was quadratic: 8.6 s at
// 8k rows, over 60 s at 20k).
#include <gtest/gtest.h>

#include <ctime>
#include <functional>
#include <string>

#include "harness/report/fleet/fleet.hpp"
#include "harness/report/page/html_report.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

// `rows` rows over two ops, one variant per problem (every row its own problem: the worst case of
// a per-problem scan), half of them in the sweep suite, a GEMM ceiling for every tenth problem.
nlohmann::json report_of_rows(int rows) {
  nlohmann::json report = test::tiny_report("GPU A", {});
  report["compute_ceilings"] = nlohmann::json::array();
  for (int i = 0; i < rows; ++i) {
    const std::string op = i % 2 ? "softmax" : "rmsnorm_rows", name = "m" + std::to_string(i) + "_n64";
    const std::string problem = op + "/" + name + "/fp32";
    report["results"].push_back({{"op", op}, {"variant", "v" + std::to_string(i % 3)}, {"problem", problem},
                                 {"problem_name", name}, {"status", "ran"}, {"disposition", "passed"},
                                 {"flags", nlohmann::json::array()}, {"suites", {i % 4 < 2 ? "sweep" : "kb"}},
                                 {"bytes", 1000.0 + i}, {"gbps", 100.0 + i % 7}, {"pct_of_copy", 10.0},
                                 {"timing", {{"median_ms", 1.0 + i % 13}, {"p10_ms", 0.9}, {"p90_ms", 1.2}}}});
    if (i % 10 == 0) report["compute_ceilings"].push_back({{"problem", problem}, {"kernel", "cublas"}, {"median_ms", 0.5}});
  }
  return report;
}

// The bound on each page's processor time. Linear rendering takes about 0.7 s (html) and 1 s
// (fleet, two reports) on a loaded 2-core machine in an optimised build; the quadratic one took
// over 60 s. An unoptimised (Debug) build is several times slower throughout.
#ifdef NDEBUG
constexpr double kBoundSeconds = 3.0;
#else
constexpr double kBoundSeconds = 20.0;
#endif

// Processor seconds, not wall seconds: a loaded CI machine does not make the bound flaky.
double cpu_seconds_of(const std::function<void()>& work) {
  const std::clock_t start = std::clock();
  work();
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

TEST(ReportScaling, TwentyThousandRowsRenderInWellUnderAFewSeconds) {
  const nlohmann::json report = report_of_rows(20000);
  std::string page;
  const double html_s = cpu_seconds_of([&] { page = render_report_html(report); });
  EXPECT_LT(html_s, kBoundSeconds) << "html took " << html_s << " s of CPU for 20k rows";
  EXPECT_NE(page.find("m19999_n64"), std::string::npos);
  const double fleet_s = cpu_seconds_of([&] { page = render_fleet_html(label_fleet_runs({{"a", report}, {"b", report}})); });
  EXPECT_LT(fleet_s, kBoundSeconds) << "fleet took " << fleet_s << " s of CPU for 2 x 20k rows";
  EXPECT_NE(page.find("m19999_n64"), std::string::npos);
}

}  // namespace
}  // namespace nb
