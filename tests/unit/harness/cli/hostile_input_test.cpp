// Bad input of every kind ends in a clear message and exit 2, never a crash: non-finite,
// overflowing and negative parameters, bad --devices and --run-id values, a bad
// NORMBENCH_ROWS_IN_FLIGHT, and report files that are malformed or hostile, given to html, compare
// and fleet.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "harness/device/gpu_info.hpp"
#include "harness/errors.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

using test::CliResult;
using test::expect_usage_error;
using test::run_cli;

TEST(HostileInput, NonFiniteOverflowingAndNegativeParameters) {
  for (const char* value : {"nan", "NaN", "inf", "-inf", "1e400", "0x1p99999"})
    expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", std::string("m=4,n=") + value}, "bad value");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=-4,n=4"}, "out of range");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=4,n=1e18"}, "got '1e18'");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=4,n=1000000000000000000"}, "out of range");
  expect_usage_error({"run", "--op", "rmsnorm_nchw", "--params", "n=1e9,c=1e9,h=1e9,w=1e9"}, "rmsnorm_nchw");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=4,n=4,m=5"}, "");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=4,,n=4"}, "bad parameter");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "=4"}, "bad parameter");
  expect_usage_error({"run", "--problem", "rmsnorm_rows/m4_nnan/fp32"}, "rmsnorm_rows");
  expect_usage_error({"run", "--problem", "rmsnorm_rows/m-4_n4/fp32"}, "rmsnorm_rows");
  expect_usage_error({"run", "--trials", "-3"}, "--trials");
  expect_usage_error({"run", "--max-samples", "99999999999999999999"}, "max-samples");
  expect_usage_error({"run", "--min-time", "nan"}, "--min-time");
}

// Every numeric option of every subcommand: NaN, infinities and values out of range are refused
// by name, never turned into a gate that is silently off or a verdict that is always SLOWER.
TEST(HostileInput, NonFiniteAndOutOfRangeOptionValues) {
  const std::string a = test::fixture_path("report_fixture.json"), b = test::fixture_path("report_fixture_new.json");
  for (const char* value : {"-5", "nan", "inf", "-inf", "1e400", "x"})
    expect_usage_error({"compare", a, b, "--fail-on-regression", value}, "--fail-on-regression");
  for (const char* option : {"--min-noise", "--spread-k", "--min-us"})
    for (const char* value : {"nan", "-1", "inf", "1e400"}) expect_usage_error({"compare", a, b, option, value}, option);
  for (const char* value : {"nan", "inf", "-1", "1e400"})
    expect_usage_error({"run", "--suite", "quick", "--slow-launch-ms", value}, "--slow-launch-ms");
  for (const char* value : {"nan", "inf", "0", "-1", "1e400"}) {
    expect_usage_error({"run", "--suite", "quick", "--min-time", value}, "--min-time");
    expect_usage_error({"eval", "cand.cu", "--op", "softmax", "--case-timeout", value}, "--case-timeout");
    expect_usage_error({"eval", "cand.cu", "--op", "softmax", "--min-time", value}, "--min-time");
  }
  for (const char* value : {"-1", "1.5", "nan", "99999999999"}) {
    expect_usage_error({"run", "--suite", "quick", "--device", value}, "--device");
    expect_usage_error({"ceilings", "--device", value}, "--device");
    expect_usage_error({"run", "--suite", "quick", "--trials", value}, "--trials");
    expect_usage_error({"run", "--suite", "quick", "--huge-trials", value}, "--huge-trials");
    expect_usage_error({"run", "--suite", "quick", "--max-samples", value}, "--max-samples");
  }
  for (const char* value : {"-1", "1.5", "nan", "18446744073709551616"}) {
    expect_usage_error({"dump", "--problem", "softmax/m7_n31/fp32", "--seed", value, "x"}, "--seed");
    expect_usage_error({"check", "--problem", "softmax/m7_n31/fp32", "--seed", value, "--outputs", "x"}, "--seed");
  }
  // In range, they pass the parser (and the fixtures' regression still fails the gate).
  EXPECT_EQ(run_cli({"compare", a, b, "--fail-on-regression", "0", "--min-noise", "0", "--spread-k", "0", "--min-us", "0"})
                .status,
            kExitVerdictFailed);
}

// An empty value is refused, not taken as "no filter"; a non-integer dim names the value given; a
// filter that empties the selection is named.
TEST(HostileInput, EmptyValuesNonIntegersAndEmptyingFilters) {
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", ""}, "--params");
  expect_usage_error({"run", "--suite", "quick", "--dtype", ""}, "--dtype");
  expect_usage_error({"run", "--suite", "quick", "--devices", ""}, "--devices");
  expect_usage_error({"run", "--suite", "quick", "--out", ""}, "--out");
  expect_usage_error({"run", "--op", "softmax", "--params", "m=4.5,n=8"}, "got '4.5'");
  expect_usage_error({"run", "--op", "softmax", "--params", "m=4.0000001,n=8"}, "got '4.0000001'");
  expect_usage_error({"run", "--op", "softmax", "--dtype", "tf32"}, "--dtype tf32");
  expect_usage_error({"run", "--op", "softmax", "--suite", "llm", "--dtype", "tf32"}, "--dtype tf32");
}

// An output that is the input report (however spelled) is refused and the report stays as it was.
TEST(HostileInput, AnOutputThatIsAnInputReportIsRefused) {
  test::TempFolder dir;
  const std::string a = dir.file("a.json"), b = dir.file("b.json");
  std::filesystem::copy_file(test::fixture_path("report_fixture.json"), a);
  std::filesystem::copy_file(test::fixture_path("report_fixture_new.json"), b);
  std::filesystem::create_directories(dir.path / "sub");
  const std::string b_other_spelling = (dir.path / "sub" / ".." / "b.json").string();
  const std::string before_a = test::read_text(a), before_b = test::read_text(b);
  expect_usage_error({"html", a, "-o", a}, "is the input report");
  expect_usage_error({"html", a, "--out", (dir.path / "sub" / ".." / "a.json").string()}, "is the input report");
  expect_usage_error({"compare", a, b, "--html", b}, "is the input report");
  expect_usage_error({"compare", a, b, "--html", b_other_spelling}, "is the input report");
  expect_usage_error({"compare", a, b, "--html", a}, "is the input report");
  expect_usage_error({"fleet", a, "-o", a}, "is the input report");
  std::filesystem::create_directories(dir.path / "run");
  std::filesystem::copy_file(a, dir.path / "run" / "report.json");
  expect_usage_error({"fleet", dir.path.string(), "-o", dir.file("run/report.json")}, "is the input report");
  EXPECT_EQ(test::read_text(dir.file("run/report.json")), before_a);
  EXPECT_EQ(test::read_text(a), before_a);
  EXPECT_EQ(test::read_text(b), before_b);
  EXPECT_EQ(run_cli({"html", a, "-o", dir.file("a.html")}).status, kExitOk);  // another name is fine
}

// An unwritable --out (or dump folder) is found before any case runs: a usage error naming it,
// not a device error (this host has no GPU) or a report lost after the run.
TEST(HostileInput, UnwritableOutputFoldersAreFoundBeforeTheRun) {
  test::TempFolder dir;
  const std::string file = dir.file("a-file");
  std::ofstream(file) << "not a folder";
  const std::string under_file = file + "/reports";
  expect_usage_error({"run", "--suite", "quick", "--op", "softmax", "--validate-only", "--out", under_file},
                     under_file);
  expect_usage_error({"run", "--suite", "quick", "--op", "softmax", "--devices", "0", "--out", under_file},
                     under_file);
  expect_usage_error({"dump", "--problem", "softmax/m7_n31/fp32", under_file}, under_file);
  expect_usage_error({"html", test::fixture_path("report_fixture.json"), "-o", under_file + "/r.html"}, under_file);
  if (geteuid() != 0) {  // root writes anywhere: a read-only folder stops only other users
    const std::filesystem::path read_only = dir.path / "read-only";
    std::filesystem::create_directories(read_only);
    std::filesystem::permissions(read_only, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    expect_usage_error({"run", "--suite", "quick", "--op", "softmax", "--out", read_only.string()}, read_only.string());
    std::filesystem::permissions(read_only, std::filesystem::perms::owner_all);
  }
  // A folder that can be written is probed and left as it was: nothing created, nothing left behind.
  const std::filesystem::path fresh = dir.path / "fresh" / "reports";
  CliResult r = run_cli({"run", "--suite", "quick", "--op", "softmax", "--validate-only", "--out", fresh.string()});
  if (!cuda_device_available()) {
    EXPECT_EQ(r.status, kExitDevice) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path / "fresh")) << "the probe left its folder behind";
  }
}

TEST(HostileInput, DevicesAndRunIds) {
  expect_usage_error({"run", "--suite", "quick", "--devices", "0,x"}, "--devices");
  expect_usage_error({"run", "--suite", "quick", "--devices", "0,0"}, "");
  expect_usage_error({"run", "--suite", "quick", "--run-id", "../../etc"}, "--run-id");
  expect_usage_error({"run", "--suite", "quick", "--run-id", ".hidden"}, "--run-id");
  expect_usage_error({"run", "--suite", "quick", "--devices", "all", "--profile"}, "--profile");
  expect_usage_error({"run", "--suite", "nope", "--devices", "all"}, "unknown suite");
}

// A bad NORMBENCH_ROWS_IN_FLIGHT stops run and eval before any case (what they expect is named).
TEST(HostileInput, ABadRowsInFlightSettingStopsTheRun) {
  struct Unset {
    ~Unset() { unsetenv("NORMBENCH_ROWS_IN_FLIGHT"); }
  } unset_after;
  ASSERT_EQ(setenv("NORMBENCH_ROWS_IN_FLIGHT", "4", 1), 0);
  expect_usage_error({"run", "--problem", "layernorm_rows/m4096_n4096/bf16", "--validate-only"},
                     "NORMBENCH_ROWS_IN_FLIGHT='4': expected 2 or 3");
  expect_usage_error({"eval", "cand.cu", "--op", "layernorm_rows"}, "NORMBENCH_ROWS_IN_FLIGHT='4': expected 2 or 3");
}

// Each text is given as a report.json to html, compare (as both sides) and fleet.
TEST(HostileInput, MalformedReportFilesAreUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"empty", ""},
      {"garbage", std::string("\x00\xff\xfe{{", 5)},
      {"truncated", R"({"schema": "normbench.report", "schema_version": 1, "results": [)"},
      {"array", "[1, 2, 3]"},
      {"string", "\"normbench.report\""},
      {"wrong schema", R"({"schema": "other", "schema_version": 1, "results": []})"},
      {"version as text", R"({"schema": "normbench.report", "schema_version": "1", "results": []})"},
      {"version fraction", R"({"schema": "normbench.report", "schema_version": 1.5, "results": []})"},
      {"version huge", R"({"schema": "normbench.report", "schema_version": 1e300, "results": []})"},
      {"version 2^64-1", R"({"schema": "normbench.report", "schema_version": 18446744073709551615, "results": []})"},
      {"version 2^63", R"({"schema": "normbench.report", "schema_version": 9223372036854775808, "results": []})"},
      {"version 0", R"({"schema": "normbench.report", "schema_version": 0, "results": []})"},
      {"version negative", R"({"schema": "normbench.report", "schema_version": -1, "results": []})"},
      {"results object", R"({"schema": "normbench.report", "schema_version": 1, "results": {}})"},
      {"row not an object", R"({"schema": "normbench.report", "schema_version": 1, "results": [{}, 1, null]})"},
      {"deep", std::string(100000, '[') + std::string(100000, ']')},
      {"deep text field", R"({"schema": "normbench.report", "schema_version": 1, "results": [{"op": )" +
                              std::string(100000, '[') + std::string(100000, ']') + "}]}"},
      {"number overflow", R"({"schema": "normbench.report", "schema_version": 1, "results": [{"gbps": 1e999}]})"},
  };
  test::TempFolder dir;
  for (const auto& [name, text] : files) {
    const std::string path = dir.file("bad.json");
    std::ofstream(path, std::ios::binary) << text;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"html", path, "-o", dir.file("out.html")},
             {"compare", path, path},
             {"fleet", path, "-o", dir.file("fleet.html")}}) {
      CliResult r = run_cli(args);
      EXPECT_EQ(r.status, kExitUsage) << name << ": " << args[0] << "\n" << r.err;
      EXPECT_NE(r.err.find("bad.json"), std::string::npos) << name << ": " << args[0] << " names the file: " << r.err;
    }
  }
}

// Readable reports whose fields have the wrong types or hold markup: rendered or refused, never a
// crash, and nothing from the file is live HTML.
TEST(HostileInput, WrongTypesAndMarkupInAReport) {
  const std::string evil = "<script>alert(1)</script>";
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back({{"op", evil}, {"variant", evil}, {"problem", evil}, {"problem_name", evil}, {"status", "ran"},
                  {"disposition", "passed"}, {"timing", {{"median_ms", "fast"}}}, {"flags", evil},
                  {"validation", {{"per_distribution", {{{"distribution", evil}, {"unwritten", "many"}}}}}}});
  rows.push_back({{"op", 5}, {"variant", {1, 2}}, {"problem", {{"a", 1}}}, {"status", 7}, {"timing", 3},
                  {"gbps", "x"}, {"pct_of_copy", -1e308}, {"params", "p"}, {"suites", 4}});
  rows.push_back({{"op", "softmax"}, {"variant", "v"}, {"problem", "softmax/m1_n1/fp32"}, {"status", "ran"},
                  {"disposition", "passed"}, {"timing", {{"median_ms", 0.0}}}, {"gbps", 1e308}});
  rows.push_back({{"op", "softmax"}, {"variant", "w"}, {"problem", "softmax/m1_n1/fp32"}, {"status", "ran"},
                  {"disposition", "passed"}, {"timing", {{"median_ms", -1.0}, {"p10_ms", "a"}}}});
  const nlohmann::json report = {{"schema", "normbench.report"}, {"schema_version", 1},
                                 {"schema_minor_version", "x"}, {"provenance", evil}, {"ceilings", {1, 2}},
                                 {"compute_ceilings", evil}, {"settings", 5}, {"summary", {{"cases", evil}}},
                                 {"interrupted", evil}, {"aborted", evil}, {"not_run", {evil, 3}},
                                 {"results", rows}};
  test::TempFolder dir;
  const std::string path = dir.file("report.json");
  test::write_json(path, report);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"html", path, "-o", dir.file("out.html")},
           {"compare", path, path, "--html", dir.file("compare.html")},
           {"compare", path, path, "--json"},
           {"fleet", path, dir.path.string(), "-o", dir.file("fleet.html")}}) {
    CliResult r = run_cli(args);
    EXPECT_TRUE(r.status == kExitOk || r.status == kExitUsage || r.status == kExitVerdictFailed)
        << args[0] << " exit " << r.status << "\n" << r.err;
  }
  for (const char* page : {"out.html", "compare.html", "fleet.html"}) {
    const std::string html = test::read_text(dir.file(page));
    EXPECT_NE(html.find("</html>"), std::string::npos) << page << " was not written";
    EXPECT_EQ(html.find(evil), std::string::npos) << page << " carries the script tag unescaped";
  }
}

}  // namespace
}  // namespace nb
