// Reports committed gzip-compressed (report.json.gz): loaded as their plain form, found by the
// folder search (once per run), and every broken or mislabelled one refused with a UsageError that
// names the file. The gzip data is made here from the plain fixtures (gzip_bytes.hpp).
#include "harness/errors.hpp"
#include "harness/files/gzip_inflate.hpp"
#include "harness/report/report_commands.hpp"
#include "harness/report/report_loading.hpp"
#include "gzip_bytes.hpp"
#include "report_test_support.hpp"
#include "usage_error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

namespace nb {
namespace {

using test::gzip;
using test::usage_error_of;
using test::write_bytes;

std::string fixture_text() { return test::read_text(test::fixture_path("report_fixture.json")); }

TEST(ReportGzip, AGzippedReportLoadsAsItsPlainForm) {
  test::TempFolder folder;
  write_bytes(folder.file("report.json.gz"), gzip(fixture_text()));
  EXPECT_EQ(load_report_file(folder.file("report.json.gz")), load_report_file(test::fixture_path("report_fixture.json")));
}

// The content says what a file is: gzip data named report.json is inflated too.
TEST(ReportGzip, GzipDataIsInflatedWhateverItsName) {
  test::TempFolder folder;
  write_bytes(folder.file("report.json"), gzip(fixture_text()));
  EXPECT_EQ(load_report_file(folder.file("report.json")), load_report_file(test::fixture_path("report_fixture.json")));
}

// `bytes` written as report.json.gz are refused by load_report_file with a UsageError that names
// the file and says `reason`.
void expect_refused_by_name(const std::string& bytes, const std::string& reason) {
  test::TempFolder folder;
  const std::string path = folder.file("report.json.gz");
  write_bytes(path, bytes);
  const std::string message = usage_error_of([&] { load_report_file(path); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(reason), std::string::npos) << message;
}

TEST(ReportGzip, ATruncatedFileIsRefusedByName) {
  const std::string compressed = gzip(fixture_text());
  for (std::size_t kept : {std::size_t(2), std::size_t(10), compressed.size() / 2, compressed.size() - 4}) {
    SCOPED_TRACE("the first " + std::to_string(kept) + " bytes");
    expect_refused_by_name(compressed.substr(0, kept), "truncated gzip data");
  }
}

TEST(ReportGzip, CorruptDataIsRefusedByName) {
  std::string compressed = gzip(fixture_text());
  for (std::size_t at = compressed.size() / 2; at < compressed.size() / 2 + 16; ++at) compressed[at] ^= 0x5a;
  expect_refused_by_name(compressed, "corrupt gzip data");
}

// The trailer's CRC-32 is checked: a flipped bit that still inflates is caught there.
TEST(ReportGzip, AWrongChecksumIsRefusedByName) {
  std::string compressed = gzip(fixture_text());
  compressed[compressed.size() - 8] ^= 1;
  expect_refused_by_name(compressed, "corrupt gzip data");
}

TEST(ReportGzip, APlainFileNamedGzIsRefusedByName) { expect_refused_by_name(fixture_text(), "not gzip-compressed"); }

TEST(ReportGzip, InflatedJsonIsCheckedAsPlainJsonIs) {
  expect_refused_by_name(gzip("{\"schema\": "), "not valid JSON");
}

// html's default output is report.html beside the report, whichever form it is in.
TEST(ReportGzip, HtmlWritesReportHtmlBesideACompressedReport) {
  test::TempFolder folder;
  write_bytes(folder.file("report.json.gz"), gzip(fixture_text()));
  EXPECT_EQ(html_command(folder.file("report.json.gz"), ""), 0);
  EXPECT_NE(test::read_text(folder.file("report.html")).find("<!DOCTYPE html>"), std::string::npos);
}

TEST(ReportGzipSearch, AFolderSearchFindsCompressedReports) {
  test::TempFolder folder;
  std::filesystem::create_directories(folder.path / "h100" / "run1");
  std::filesystem::create_directories(folder.path / "a100" / "run2");
  write_bytes(folder.file("h100/run1/report.json.gz"), gzip(fixture_text()));
  std::filesystem::copy_file(test::fixture_path("report_fixture_other_gpu.json"), folder.path / "a100" / "run2" / "report.json");
  write_bytes(folder.file("h100/run1/notes.json.gz"), gzip("{}"));  // not named report.json.gz
  const ReportFiles found = find_report_files({folder.path.string()});
  EXPECT_EQ(found.files, (std::vector<std::string>{folder.file("a100/run2/report.json"), folder.file("h100/run1/report.json.gz")}));
  EXPECT_TRUE(found.skipped.empty());
  const std::string out = folder.file("fleet.html");
  EXPECT_EQ(fleet_command({folder.path.string()}, out), 0);
  const std::string html = test::read_text(out);
  EXPECT_NE(html.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(html.find("NVIDIA A100-SXM4-80GB"), std::string::npos);
  EXPECT_NE(html.find("fleet: 2 reports"), std::string::npos);
}

// gzip -k leaves report.json beside report.json.gz: one run, taken from the plain file.
TEST(ReportGzipSearch, AFolderWithBothFormsCountsTheRunOnce) {
  test::TempFolder folder;
  std::filesystem::create_directories(folder.path / "run");
  std::filesystem::copy_file(test::fixture_path("report_fixture.json"), folder.path / "run" / "report.json");
  write_bytes(folder.file("run/report.json.gz"), gzip(fixture_text()));
  EXPECT_EQ(find_report_files({folder.path.string()}).files, std::vector<std::string>{folder.file("run/report.json")});
  const std::string out = folder.file("fleet.html");
  EXPECT_EQ(fleet_command({folder.path.string()}, out), 0);
  EXPECT_NE(test::read_text(out).find("fleet: 1 reports"), std::string::npos);
}

// A broken compressed report found by the search stops the fleet with its name, as a broken plain
// one does: a fleet page silently missing a run would read as complete.
TEST(ReportGzipSearch, ABrokenCompressedReportInAFolderIsNamed) {
  test::TempFolder folder;
  std::filesystem::create_directories(folder.path / "run");
  const std::string compressed = gzip(fixture_text());
  write_bytes(folder.file("run/report.json.gz"), compressed.substr(0, compressed.size() / 2));
  const std::string message = usage_error_of([&] { fleet_command({folder.path.string()}, folder.file("fleet.html")); });
  EXPECT_NE(message.find(folder.file("run/report.json.gz")), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(folder.file("fleet.html")));
}

// A gzip bomb: inflation stops at the bound, the file named.
TEST(GzipInflate, StopsAtTheBound) {
  const std::string compressed = gzip(std::string(100000, 'x'));
  EXPECT_EQ(inflate_gzip(compressed, "x.gz", 100000).size(), 100000u);
  const std::string message = usage_error_of([&] { inflate_gzip(compressed, "x.gz", 99999); });
  EXPECT_NE(message.find("x.gz: inflates to more than 99999 bytes"), std::string::npos) << message;
}

// Members one after another (cat a.gz b.gz) inflate to their texts one after another, as gunzip
// gives them; bytes after the last member that are no gzip data are refused.
TEST(GzipInflate, ReadsEveryMemberAndRefusesTrailingBytes) {
  const std::string two = gzip("first,") + gzip("second");
  EXPECT_EQ(inflate_gzip(two, "two.gz", 1000), "first,second");
  const std::string message = usage_error_of([&] { inflate_gzip(two + "tail", "two.gz", 1000); });
  EXPECT_NE(message.find("two.gz: 4 bytes after the gzip data"), std::string::npos) << message;
}

TEST(GzipInflate, TellsGzipByItsMagicBytes) {
  EXPECT_TRUE(starts_with_gzip_magic(gzip("")));
  EXPECT_FALSE(starts_with_gzip_magic("{}"));
  EXPECT_FALSE(starts_with_gzip_magic("\x1f"));
  EXPECT_FALSE(starts_with_gzip_magic(""));
}

}  // namespace
}  // namespace nb
