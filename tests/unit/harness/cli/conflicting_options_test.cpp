// Options that contradict each other are refused by both names (exit 2), never run with one of
// them silently dropped; a value that only looks like a number is quoted back; a word that is
// not a subcommand is named; --version says what was built.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "harness/device/gpu_info.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

using test::CliResult;
using test::expect_usage_error;
using test::run_cli;

// Exit 2, and the message names both options.
void expect_conflict(const std::vector<std::string>& args, const std::string& first, const std::string& second) {
  CliResult r = run_cli(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_EQ(r.status, kExitUsage) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(first), std::string::npos) << joined << "\nstderr was: " << r.err;
  EXPECT_NE(r.err.find(second), std::string::npos) << joined << "\nstderr was: " << r.err;
}

TEST(ConflictingOptions, AreRefusedNamingBoth) {
  const std::string fp32 = "softmax/m7_n31/fp32";
  expect_conflict({"run", "--problem", fp32, "--dtype", "fp64"}, "--problem", "--dtype");
  expect_conflict({"run", "--problem", fp32, "--dtype", "bf16"}, "--problem", "--dtype");
  expect_conflict({"run", "--op", "softmax", "--params", "m=4,n=8", "--problem", "bogus"}, "--params", "--problem");
  expect_conflict({"run", "--op", "softmax", "--params", "m=4,n=8", "--suite", "quick"}, "--params", "--suite");
  expect_conflict({"run", "--problem", fp32, "--suite", "nosuch"}, "--problem", "--suite");
  expect_conflict({"run", "--suite", "quick", "--devices", "0", "--device", "1"}, "--devices", "--device");
  expect_conflict({"run", "--suite", "quick", "--profile", "--validate-only"}, "--profile", "--validate-only");
  expect_conflict({"eval", "cand.cu", "--op", "softmax", "--no-builtins", "--variant", "nosuch"}, "--no-builtins",
                  "--variant");
  expect_conflict({"eval", "cand.cu", "--op", "softmax", "--problem", fp32, "--suite", "quick"}, "--problem", "--suite");
  expect_conflict({"run", "--suite", "quick", "--huge-trials", "5", "--trials", "2"}, "--huge-trials", "--trials");
  expect_conflict({"eval", "cand.cu", "--op", "softmax", "--huge-trials", "5", "--trials", "2"}, "--huge-trials",
                  "--trials");
}

// The same options alone, or agreeing, pass the parser: without a GPU the run gets as far as the
// device (exit 3), not a usage error.
TEST(ConflictingOptions, AgreeingOptionsStillRun) {
  if (cuda_device_available()) GTEST_SKIP() << "a GPU is present: these would run";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"run", "--problem", "softmax/m7_n31/fp32", "--dtype", "fp32", "--validate-only"},
           {"run", "--problem", "softmax/m7_n31/fp32", "--trials", "2", "--validate-only"},  // the huge default follows
           {"run", "--problem", "softmax/m7_n31/fp32", "--trials", "2", "--huge-trials", "2", "--validate-only"},
           {"run", "--op", "softmax", "--params", "m=4,n=8", "--dtype", "bf16", "--validate-only"}}) {
    CliResult r = run_cli(args);
    EXPECT_EQ(r.status, kExitDevice) << args[1] << " " << args[2] << "\n" << r.err;
  }
}

TEST(ConflictingOptions, ParameterValuesMustBePlainDecimalIntegers) {
  for (const char* value : {"0x10", "1e3", "+16", "16.0", "2^63"})
    expect_usage_error({"run", "--op", "softmax", "--params", std::string("m=") + value + ",n=8"},
                       std::string("'") + value + "'");
  for (const char* value : {"9223372036854775808", "18446744073709551616"}) {
    CliResult r = run_cli({"run", "--op", "softmax", "--params", std::string("m=") + value + ",n=8"});
    EXPECT_EQ(r.status, kExitUsage) << r.err;
    EXPECT_NE(r.err.find(std::string("= ") + value + " is out of range"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("-9223372036854775808"), std::string::npos) << "shown negative: " << r.err;
  }
  expect_usage_error({"run", "--problem", "softmax/m0x10_n8/fp32"}, "'0x10'");
}

// --devices with --run-id: the run id is the stem of the per-GPU run ids and names the fleet folder
// (<out>/fleet/<run-id>), which is probed before any device is looked for.
TEST(ConflictingOptions, DevicesHonourTheRunId) {
  test::TempFolder dir;
  std::filesystem::create_directories(dir.path / "fleet");
  std::ofstream(dir.path / "fleet" / "nightly") << "a file where the fleet folder would go";
  expect_usage_error({"run", "--suite", "quick", "--devices", "0", "--run-id", "nightly", "--out", dir.path.string()},
                     (dir.path / "fleet" / "nightly").string());
}

TEST(Subcommands, AnUnknownOneIsNamedWithTheSubcommands) {
  CliResult r = run_cli({"bogus"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("'bogus' is not a subcommand"), std::string::npos) << r.err;
  for (const char* name : {"list", "run", "html", "compare", "fleet", "ceilings", "eval", "dump", "check"})
    EXPECT_NE(r.err.find(name), std::string::npos) << name << " is not listed: " << r.err;
  EXPECT_EQ(r.err.find("eval-worker"), std::string::npos) << "the hidden worker is listed: " << r.err;
}

TEST(Subcommands, VersionPrintsTheVersionAndTheCommit) {
  CliResult r = run_cli({"--version"});
  EXPECT_EQ(r.status, kExitOk) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^normbench [0-9]+\.[0-9]+\.[0-9]+\ncommit ([0-9a-f]{7,40}|unknown))")))
      << r.out;
}

}  // namespace
}  // namespace nb
