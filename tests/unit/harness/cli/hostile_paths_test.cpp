// Paths that are not what they seem: a symbolic link loop named report.json, a link that leads
// nowhere given as an output folder, a FIFO or a folder given as an output file or as a file to
// read. Each is named in a message, refused or skipped; none aborts, blocks or is replaced.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;
using test::expect_usage_error;
using test::run_cli;

// The exit status of the normbench binary run with `args`, killed after 60 s (status 124): a
// command that blocks fails the test instead of hanging it. Its output goes to `log`.
int normbench_with_timeout(const std::string& args, const std::string& log) {
  const int raw = std::system(("timeout 60 " + std::string(NORMBENCH_BINARY) + " " + args + " > " + log + " 2>&1").c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

TEST(HostilePaths, FleetSkipsALinkLoopNamedReportJson) {
  test::TempFolder dir;
  fs::create_directories(dir.path / "gpu0");
  fs::copy_file(test::fixture_path("report_fixture.json"), dir.path / "gpu0" / "report.json");
  fs::create_directories(dir.path / "loop");
  fs::create_symlink("report.json", dir.path / "loop" / "report.json");
  const std::string page = dir.file("fleet.html");
  const int status = normbench_with_timeout("fleet " + dir.path.string() + " -o " + page, dir.file("fleet.log"));
  const std::string log = test::read_text(dir.file("fleet.log"));
  EXPECT_EQ(status, kExitOk) << log;  // not 134 (an uncaught filesystem_error)
  EXPECT_NE(log.find("skipped " + dir.file("loop/report.json") + ": a symbolic link loop"), std::string::npos) << log;
  EXPECT_NE(test::read_text(page).find("</html>"), std::string::npos);
  expect_usage_error({"fleet", dir.file("loop/report.json"), "-o", page}, "symbolic link loop");
}

// The write probe of --out and of dump's folder removes only what it created: a link that leads
// nowhere is named as the reason and stays.
TEST(HostilePaths, TheWriteProbeNamesAndKeepsALinkThatLeadsNowhere) {
  test::TempFolder dir;
  const fs::path dangling = dir.path / "dangling", loop = dir.path / "loop";
  fs::create_symlink(dir.path / "no-such-folder", dangling);
  fs::create_symlink("loop", loop);
  for (const fs::path& link : {dangling, loop}) {
    const std::string why = link == loop ? "a symbolic link loop" : "which does not exist";
    for (const std::string& out : {link.string(), (link / "reports").string()})
      expect_usage_error({"run", "--suite", "quick", "--op", "softmax", "--validate-only", "--out", out}, why);
    expect_usage_error({"dump", "--problem", "softmax/m7_n31/fp32", link.string()}, why);
    EXPECT_TRUE(fs::is_symlink(link)) << link << " was removed";
  }
}

// html -o, compare --html and fleet -o write only regular files: a FIFO, a folder or a link that
// leads nowhere is refused and stays what it was; a link to a regular file is written through.
TEST(HostilePaths, OutputsThatAreNotRegularFilesAreRefused) {
  test::TempFolder dir;
  const std::string report = test::fixture_path("report_fixture.json");
  const std::string fifo = dir.file("fifo"), folder = dir.file("folder"), dangling = dir.file("dangling");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  fs::create_directories(folder);
  fs::create_symlink(dir.file("nothing"), dangling);
  for (const auto& [out, what] : {std::pair{fifo, "a FIFO"}, {folder, "a folder"}, {dangling, "which does not exist"}}) {
    expect_usage_error({"html", report, "-o", out}, what);
    expect_usage_error({"compare", report, report, "--html", out}, what);
    expect_usage_error({"fleet", report, "-o", out}, what);
  }
  // As root, "-o /dev/null" replaced /dev/null with a page: a device node of our own stands for it.
  const std::string device = dir.file("null");
  if (geteuid() == 0 && mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    expect_usage_error({"html", report, "-o", device}, "a character device");
    expect_usage_error({"fleet", report, "-o", device}, "a character device");
    EXPECT_TRUE(fs::is_character_file(device));
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::is_directory(folder));
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_FALSE(fs::exists(dir.file("nothing")));
  const std::string target = dir.file("latest-target.html"), link = dir.file("latest.html");
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  EXPECT_EQ(run_cli({"html", report, "-o", link}).status, kExitOk);
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a file";
  EXPECT_NE(test::read_text(target).find("</html>"), std::string::npos) << "the link's target was not written";
}

// check reads each output .npy: a FIFO is named without being opened (opening one blocks until a
// writer comes), a folder and an unreadable file are named, not called missing.
TEST(HostilePaths, CheckNamesAFifoOrAnUnreadableOutputWithoutBlocking) {
  test::TempFolder dir;
  const std::string y = dir.file("y.npy");
  ASSERT_EQ(mkfifo(y.c_str(), 0644), 0);
  const std::string check = "check --problem softmax/m7_n31/fp32 --outputs " + dir.path.string();
  const int status = normbench_with_timeout(check, dir.file("check.log"));
  const std::string log = test::read_text(dir.file("check.log"));
  EXPECT_EQ(status, kExitUsage) << "exit " << status << " (124: it blocked on the FIFO)\n" << log;
  EXPECT_NE(log.find(y + ": a FIFO, not a regular file"), std::string::npos) << log;
  fs::remove(y);
  fs::create_directories(y);
  expect_usage_error({"check", "--problem", "softmax/m7_n31/fp32", "--outputs", dir.path.string()}, "a folder");
  fs::remove(y);
  if (geteuid() != 0) {  // root reads anything
    std::ofstream(y) << "x";
    fs::permissions(y, fs::perms::none);
    expect_usage_error({"check", "--problem", "softmax/m7_n31/fp32", "--outputs", dir.path.string()},
                       "Permission denied");
  }
}

}  // namespace
}  // namespace nb
