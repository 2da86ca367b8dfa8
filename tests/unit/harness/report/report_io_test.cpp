#include "harness/errors.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/report/report_commands.hpp"
#include "harness/report/report_loading.hpp"
#include "report_test_support.hpp"
#include "usage_error.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace nb {
namespace {

using test::usage_error_of;

TEST(ReportLoading, MissingFileNamesThePath) {
  std::string message = usage_error_of([] { load_report_file("/nonexistent/report.json"); });
  EXPECT_NE(message.find("/nonexistent/report.json"), std::string::npos);
  EXPECT_NE(message.find("no such"), std::string::npos);
}

TEST(ReportLoading, NotJsonNamesThePathAndTheReason) {
  test::TempFolder folder;
  std::ofstream(folder.file("broken.json")) << "{\"schema\": ";
  std::string message = usage_error_of([&] { load_report_file(folder.file("broken.json")); });
  EXPECT_NE(message.find(folder.file("broken.json")), std::string::npos);
  EXPECT_NE(message.find("not valid JSON"), std::string::npos);
}

TEST(ReportLoading, WrongSchemaOrNewerVersionIsRefused) {
  test::TempFolder folder;
  test::write_json(folder.file("other.json"), {{"schema", "something.else"}, {"schema_version", 1}, {"results", nlohmann::json::array()}});
  EXPECT_NE(usage_error_of([&] { load_report_file(folder.file("other.json")); }).find("not a normbench report"), std::string::npos);
  nlohmann::json newer = test::load_fixture("report_fixture.json");
  newer["schema_version"] = 2;
  test::write_json(folder.file("newer.json"), newer);
  EXPECT_NE(usage_error_of([&] { load_report_file(folder.file("newer.json")); }).find("newer"), std::string::npos);
  newer["schema_version"] = std::numeric_limits<std::uint64_t>::max();  // must not wrap to -1 and read as old
  test::write_json(folder.file("newest.json"), newer);
  EXPECT_NE(usage_error_of([&] { load_report_file(folder.file("newest.json")); }).find("newer"), std::string::npos);
  newer["schema_version"] = 0;
  test::write_json(folder.file("zero.json"), newer);
  EXPECT_NE(usage_error_of([&] { load_report_file(folder.file("zero.json")); }).find("not a version"), std::string::npos);
  test::write_json(folder.file("no_results.json"), {{"schema", "normbench.report"}, {"schema_version", 1}});
  EXPECT_NE(usage_error_of([&] { load_report_file(folder.file("no_results.json")); }).find("results"), std::string::npos);
}

// A report is 8 levels deep; a text field nested 100,000 deep (a 200 KB file) crashed html,
// compare and fleet in the recursive walks that followed the parse. Refused at the parse, by name.
TEST(ReportLoading, DeepNestingIsRefusedNamingTheFile) {
  test::TempFolder folder;
  const std::string path = folder.file("deep.json");
  std::ofstream(path) << R"({"schema": "normbench.report", "schema_version": 1, "results": [{"op": )"
                      << std::string(100000, '[') << std::string(100000, ']') << "}]}";
  std::string message = usage_error_of([&] { load_report_file(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("nested deeper than"), std::string::npos) << message;
}

// Every error of the loader names the file, a number too large for a double among them (the
// library reports it as out_of_range, not as a parse error).
TEST(ReportLoading, ANumberOverflowNamesTheFile) {
  test::TempFolder folder;
  const std::string path = folder.file("overflow.json");
  std::ofstream(path) << R"({"schema": "normbench.report", "schema_version": 1, "results": [{"gbps": 1e999}]})";
  std::string message = usage_error_of([&] { load_report_file(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("1e999"), std::string::npos) << message;
}

TEST(ReportLoading, FixturesFollowTheSchema) {
  for (const char* name : {"report_fixture.json", "report_fixture_new.json", "report_fixture_other_gpu.json", "report_fixture_gemm.json"})
    EXPECT_NO_THROW(load_report_file(test::fixture_path(name))) << name;
}

TEST(AtomicWrite, WritesAndReplacesWithoutLeavingTemporaries) {
  test::TempFolder folder;
  std::string path = folder.file("out.txt");
  write_file_atomically(path, "first");
  write_file_atomically(path, "second, longer");
  EXPECT_EQ(test::read_text(path), "second, longer");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder.path)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(AtomicWrite, MissingFolderThrowsUsageErrorWithThePath) {
  std::string message = usage_error_of([] { write_file_atomically("/nonexistent-folder/x/report.html", "x"); });
  EXPECT_NE(message.find("/nonexistent-folder/x/report.html"), std::string::npos);
}

TEST(HtmlCommand, WritesReportHtmlBesideTheJsonByDefault) {
  test::TempFolder folder;
  std::filesystem::copy_file(test::fixture_path("report_fixture.json"), folder.path / "report.json");
  EXPECT_EQ(html_command(folder.file("report.json"), ""), 0);
  EXPECT_NE(test::read_text(folder.file("report.html")).find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_EQ(html_command(folder.file("report.json"), folder.file("elsewhere.html")), 0);
  EXPECT_TRUE(std::filesystem::exists(folder.file("elsewhere.html")));
  EXPECT_THROW(html_command(folder.file("absent.json"), ""), UsageError);
}

}  // namespace
}  // namespace nb
