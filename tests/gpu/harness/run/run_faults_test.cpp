// Faults that must end in a report: a problem too large for the GPU is skipped with its need, an
// allocation that fails anyway is that case's error, a lost CUDA context aborts the run with the
// rest listed as not run, and SIGINT stops a real `normbench run` with a partial report (exit 130).
// The context-loss test poisons its process's context: CTest runs each test in a process of its own.
#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <thread>

#include "child_wait.hpp"
#include "gpu_harness.hpp"
#include "harness/candidate/child_process.hpp"
#include "harness/cli/devices_run.hpp"
#include "harness/errors.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/report/json/report_json.hpp"
#include "harness/report/report_loading.hpp"
#include "harness/report/report_writer.hpp"
#include "harness/run/runner.hpp"
#include "planted_variants.hpp"

namespace nb::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("normbench-faults-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(RunFaults, AProblemLargerThanTheGpuIsSkippedWithItsNeedAndTheRunGoesOn) {
  const OpSpec& op = registry().op("rmsnorm_nchw");
  Variant* naive = op.find_variant("naive");
  ASSERT_NE(naive, nullptr);
  // 512 GiB of tensors: more than any GPU's memory. (128 GiB fitted an H200's 141 GB, and the case was
  // refused for the host's memory instead.)
  const Problem huge = op.make_problem({{"n", 4096}, {"c", 64}, {"h", 512}, {"w", 512}});
  const Problem small = op.make_problem({{"n", 2}, {"c", 64}, {"h", 16}, {"w", 16}});
  RunRecord r = run_cases({{&op, naive, huge, {}}, {&op, naive, small, {}}}, validate_only_options());
  EXPECT_EQ(r.outcomes[0].status, CaseStatus::skipped) << describe(r.outcomes[0]);
  EXPECT_NE(r.outcomes[0].reason.find("needs 512."), std::string::npos) << r.outcomes[0].reason;
  EXPECT_NE(r.outcomes[0].reason.find("GiB free"), std::string::npos) << r.outcomes[0].reason;
  EXPECT_EQ(r.outcomes[1].validation.disposition, Disposition::passed) << describe(r.outcomes[1]);
  EXPECT_TRUE(r.aborted.empty());
}

TEST(RunFaults, AnAllocationThatFailsAnywayIsThatCasesErrorAndTheRunGoesOn) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  Variant* correct = op.find_variant("naive");
  const Problem p = op.make_problem({{"m", 64}, {"n", 1000}});
  auto oom = make_planted_variant(Fault::oom_in_prepare, op, *correct, 64, 1000);
  RunRecord r = run_cases({{&op, oom.get(), p, {}}, {&op, correct, p, {}}}, validate_only_options());
  EXPECT_EQ(r.outcomes[0].status, CaseStatus::error);
  EXPECT_NE(r.outcomes[0].reason.find("out of memory"), std::string::npos) << r.outcomes[0].reason;
  EXPECT_EQ(r.outcomes[1].validation.disposition, Disposition::passed) << describe(r.outcomes[1]);
  EXPECT_TRUE(r.aborted.empty());
}

TEST(RunFaults, ALostContextAbortsTheRunWithAPartialReport) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  Variant* correct = op.find_variant("naive");
  const Problem a = op.make_problem({{"m", 64}, {"n", 1000}}), b = op.make_problem({{"m", 32}, {"n", 512}});
  auto wild = make_planted_variant(Fault::illegal_address, op, *correct, 64, 1000);
  RunRecord r =
      run_cases({{&op, correct, a, {}}, {&op, wild.get(), a, {}}, {&op, correct, b, {}}}, validate_only_options());
  EXPECT_NE(r.aborted.find("the CUDA context was lost"), std::string::npos) << r.aborted;
  EXPECT_EQ(r.outcomes[1].status, CaseStatus::error) << describe(r.outcomes[1]);
  EXPECT_NE(r.outcomes[1].reason.find("illegal"), std::string::npos) << r.outcomes[1].reason;
  EXPECT_EQ(r.outcomes[0].status, CaseStatus::not_run);
  EXPECT_EQ(r.outcomes[2].status, CaseStatus::not_run);
  const auto metrics = compute_metrics(r);
  EXPECT_EQ(run_exit_status(r, metrics), kExitDevice);
  TempDir dir;
  const std::string path = write_run_report(build_report_json(r, metrics), dir.path.string());
  const nlohmann::json report = load_report_file(path);
  EXPECT_EQ(report["aborted"], r.aborted);
  EXPECT_EQ(report["not_run"].size(), 2u);
  EXPECT_EQ(report["summary"]["exit_status"], kExitDevice);
}

// A real normbench run of the KernelBench rmsnorm_nchw problems (minutes), interrupted early.
TEST(RunFaults, SigintWritesAPartialReportAndExitsOneThirty) {
  TempDir dir;
  const std::string log = (dir.path / "run.log").string();
  const StartedChild child = start_child({NORMBENCH_BINARY, "run", "--op", "rmsnorm_nchw", "--suite", "kb", "--out",
                                          (dir.path / "reports").string()}, log);
  for (int i = 0; i < 600 && read_tail(log).find("[2/") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  signal_child(child, SIGINT);
  const std::optional<ChildEnd> end = wait_for_end(child, std::chrono::seconds(120));
  ASSERT_TRUE(end.has_value()) << "normbench did not stop within 120 s of SIGINT";
  EXPECT_EQ(end->how, ChildEnd::How::exited) << read_tail(log);
  EXPECT_EQ(end->code, kExitInterrupted) << read_tail(log);
  const std::string path = report_path_in_output(read_tail(log, 1 << 16));
  ASSERT_FALSE(path.empty()) << read_tail(log);
  const nlohmann::json report = load_report_file(path);
  EXPECT_EQ(report["interrupted"], true);
  EXPECT_FALSE(report["not_run"].empty());
  EXPECT_EQ(report["summary"]["exit_status"], kExitInterrupted);
}

}  // namespace
}  // namespace nb::test
