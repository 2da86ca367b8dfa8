// The CLI: bad arguments and bad parameters give a clear message and exit 2, before any device
// is touched; list works without a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "gzip_bytes.hpp"
#include "harness/device/gpu_info.hpp"
#include "harness/errors.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

using test::CliResult;
using test::expect_usage_error;
using test::gzip;
using test::read_text;
using test::run_cli;
using test::TempFolder;
using test::write_bytes;

TEST(Cli, BadArgumentsAndParametersExitTwoWithAMessage) {
  expect_usage_error({}, "ubcommand");
  expect_usage_error({"frobnicate"}, "ubcommand");
  expect_usage_error({"run", "--op", "no_such_op"}, "unknown op 'no_such_op'");
  expect_usage_error({"run", "--suite", "no_such_suite"}, "unknown suite 'no_such_suite'");
  expect_usage_error({"run", "--variant", "no_such_variant"}, "no_such_variant");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=0,n=4"}, "out of range");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=4"}, "'n' is required");
  expect_usage_error({"run", "--op", "rmsnorm_rows", "--params", "m=4,n=2.5"}, "integer");
  expect_usage_error({"run", "--params", "m=4,n=4"}, "exactly one --op");
  expect_usage_error({"run", "--problem", "rmsnorm_rows/m4_nx/fp32"}, "bad");
  expect_usage_error({"run", "--problem", "rmsnorm_rows/m4_n4/fp64"}, "dtype");
  expect_usage_error({"run", "--distributions", "gaussian"}, "unknown distribution");
  expect_usage_error({"run", "--trials", "0"}, "--trials");
  expect_usage_error({"run", "--huge-trials", "0"}, "--huge-trials");
  expect_usage_error({"run", "--slow-launch-ms", "-1"}, "--slow-launch-ms");
  expect_usage_error({"run", "--min-time", "-1"}, "--min-time");
  expect_usage_error({"run", "--frobnicate"}, "--frobnicate");
  expect_usage_error({"list", "widgets"}, "widgets");
  expect_usage_error({"html", "/no/such/report.json"}, "no such report file");
  expect_usage_error({"compare", "/no/such/a.json", "/no/such/b.json"}, "no such report file");
  expect_usage_error({"fleet", "/no/such/folder"}, "/no/such/folder");
  expect_usage_error({"ceilings", "--frobnicate"}, "--frobnicate");
}

TEST(Cli, ThePlanCacheIsOneFolderOrNone) {
  expect_usage_error({"run", "--plan-cache", "/tmp/plans", "--no-plan-cache"}, "--plan-cache excludes --no-plan-cache");
  expect_usage_error({"run", "--plan-cache", ""}, "--plan-cache");
  expect_usage_error({"run", "--plan-cache"}, "--plan-cache");
  expect_usage_error({"eval", "k.cu", "--op", "softmax", "--no-plan-cache", "--plan-cache", "/tmp/plans"},
                     "--plan-cache excludes --no-plan-cache");
  const CliResult help = run_cli({"run", "--help"});
  EXPECT_NE(help.out.find("$XDG_CACHE_HOME/normbench/cudnn-plans"), std::string::npos) << help.out;
}

TEST(Cli, PlanThreadsAreAWholeNumberFromZero) {
  expect_usage_error({"run", "--plan-threads", "-1"}, "--plan-threads");
  expect_usage_error({"run", "--plan-threads", "2.5"}, "--plan-threads");
  expect_usage_error({"run", "--plan-threads", "many"}, "--plan-threads");
  expect_usage_error({"run", "--plan-threads", "100000"}, "--plan-threads");
  expect_usage_error({"eval", "k.cu", "--op", "softmax", "--plan-threads", "-3"}, "--plan-threads");
  const CliResult help = run_cli({"run", "--help"});
  EXPECT_NE(help.out.find("--plan-threads"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("the cores less two, at most 16"), std::string::npos) << help.out;
}

TEST(Cli, MisalignedIsAFlagOfRunAndEval) {
  for (const char* command : {"run", "eval"}) {
    const CliResult help = run_cli({command, "--help"});
    EXPECT_NE(help.out.find("--misaligned"), std::string::npos) << command << ": " << help.out;
    EXPECT_NE(help.out.find("one element past a 256-byte boundary"), std::string::npos) << command;
  }
  expect_usage_error({"run", "--misaligned", "--frobnicate"}, "--frobnicate");
}

TEST(Cli, NoLaunchesIsAFlagOfRunAndEval) {
  for (const char* command : {"run", "eval"}) {
    const CliResult help = run_cli({command, "--help"});
    EXPECT_NE(help.out.find("--no-launches"), std::string::npos) << command << ": " << help.out;
    EXPECT_NE(help.out.find("CUPTI records"), std::string::npos) << command;
  }
  expect_usage_error({"run", "--no-launches", "--frobnicate"}, "--frobnicate");
  expect_usage_error({"run", "--no-launches=maybe"}, "--no-launches");
}

// A flag given a value it cannot take is a usage error, not an uncaught conversion.
TEST(Cli, FlagsGivenAValueAreUsageErrors) {
  expect_usage_error({"run", "--quiet=maybe"}, "--quiet");
  expect_usage_error({"run", "--misaligned=maybe"}, "--misaligned");
  expect_usage_error({"eval", "cand.cu", "--op", "softmax", "--quiet=maybe"}, "--quiet");
}

TEST(Cli, ListWorksWithoutAGpu) {
  CliResult ops = run_cli({"list", "ops"});
  EXPECT_EQ(ops.status, kExitOk);
  EXPECT_NE(ops.out.find("rmsnorm_nchw"), std::string::npos);
  CliResult variants = run_cli({"list", "variants", "--op", "rmsnorm_nchw"});
  EXPECT_EQ(variants.status, kExitOk);
  EXPECT_NE(variants.out.find("naive"), std::string::npos);
  EXPECT_NE(variants.out.find("(welford)"), std::string::npos) << "Welford is listed as not applicable";
  CliResult problems = run_cli({"list", "problems", "--suite", "kb"});
  EXPECT_NE(problems.out.find("rmsnorm_nchw/n112_c64_h512_w512/fp32"), std::string::npos);
  EXPECT_EQ(problems.out.find("quick"), std::string::npos);
}

TEST(Cli, CompareOfTheFixturesFailsOnTheirRegression) {
  const std::string data = NORMBENCH_TEST_DATA_DIR;
  CliResult same = run_cli({"compare", data + "/report_fixture.json", data + "/report_fixture.json",
                            "--fail-on-regression", "5"});
  EXPECT_EQ(same.status, kExitOk) << same.err;
  CliResult changed = run_cli({"compare", data + "/report_fixture.json", data + "/report_fixture_new.json",
                               "--fail-on-regression", "5"});
  EXPECT_EQ(changed.status, kExitVerdictFailed) << changed.out;
  EXPECT_NE(changed.out.find("SLOWER"), std::string::npos);
}

// Committed reports are gzip-compressed: compare reads them as it reads plain ones, and a broken
// one exits 2 naming the file.
TEST(Cli, CompareReadsCompressedReports) {
  const std::string data = NORMBENCH_TEST_DATA_DIR;
  TempFolder folder;
  write_bytes(folder.file("base.json.gz"), gzip(read_text(data + "/report_fixture.json")));
  write_bytes(folder.file("new.json.gz"), gzip(read_text(data + "/report_fixture_new.json")));
  CliResult changed = run_cli({"compare", folder.file("base.json.gz"), folder.file("new.json.gz"), "--fail-on-regression", "5"});
  EXPECT_EQ(changed.status, kExitVerdictFailed) << changed.err;
  EXPECT_NE(changed.out.find("SLOWER"), std::string::npos);
  const std::string compressed = gzip(read_text(data + "/report_fixture.json"));
  write_bytes(folder.file("cut.json.gz"), compressed.substr(0, compressed.size() / 2));
  expect_usage_error({"compare", folder.file("cut.json.gz"), folder.file("new.json.gz")},
                     folder.file("cut.json.gz") + ": truncated gzip data");
}

TEST(Cli, RunWithoutADeviceIsADeviceErrorNotACrash) {
  if (cuda_device_available()) GTEST_SKIP() << "a GPU is present";
  CliResult r = run_cli({"run", "--suite", "quick", "--op", "rmsnorm_rows", "--validate-only"});
  EXPECT_EQ(r.status, kExitDevice);
  EXPECT_NE(r.err.find("no usable CUDA device"), std::string::npos) << r.err;
  // Google Benchmark's flags pass the parser (they reach benchmark::Initialize), so the run gets
  // as far as the device.
  CliResult gb = run_cli({"run", "--suite", "quick", "--op", "rmsnorm_rows", "--benchmark_filter=naive",
                          "--benchmark_repetitions=2", "--benchmark_out=/tmp/normbench-gb.json"});
  EXPECT_EQ(gb.status, kExitDevice) << gb.err;
  CliResult ceilings = run_cli({"ceilings", "--json", "--device", "0"});
  EXPECT_EQ(ceilings.status, kExitDevice) << ceilings.err;
  EXPECT_NE(ceilings.err.find("no usable CUDA device"), std::string::npos) << ceilings.err;
}

// With no NVIDIA driver at all the runtime says "driver version is insufficient", which sends people
// to upgrade a driver that is not there: the message names the missing driver instead.
TEST(Cli, NoDriverAtAllIsNamedAsSuch) {
  if (cuda_device_available()) GTEST_SKIP() << "a GPU is present";
  if (void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY)) {
    dlclose(libcuda);
    GTEST_SKIP() << "a driver is installed (no device)";
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--suite", "quick", "--op", "rmsnorm_rows", "--validate-only"},
        {"ceilings"},
        {"run", "--suite", "quick", "--op", "rmsnorm_rows", "--devices", "all"}}) {
    CliResult r = run_cli(args);
    EXPECT_EQ(r.status, kExitDevice) << r.err;
    EXPECT_NE(r.err.find("no NVIDIA driver found (libcuda.so.1 not loadable)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("insufficient"), std::string::npos) << r.err;
  }
  EXPECT_NE(why_no_cuda_device().find("no NVIDIA driver"), std::string::npos);
}

}  // namespace
}  // namespace nb
