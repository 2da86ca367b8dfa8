// What the parent of a candidate's worker believes (harness/candidate/worker_protocol.hpp): one
// outcome and its hidden-shape verdict, timings that fit in the time it saw the worker's timed
// loop take, and nothing else in the channel; and the channel itself (a pipe at fd 3).
#include <gtest/gtest.h>

#include <csignal>

#include "harness/candidate/child_process.hpp"
#include "harness/candidate/outcome_json.hpp"
#include "harness/candidate/worker_protocol.hpp"

namespace nb {
namespace {

CaseOutcome passed_with_samples(std::vector<double> samples_ms) {
  CaseOutcome o;
  o.containment = "completed";
  DistributionVerdict d;
  d.seeds = {1};
  o.validation.distributions.push_back(d);
  o.validation.conclude();
  if (!samples_ms.empty()) o.timing.emplace().samples_ms = std::move(samples_ms);
  return o;
}

ChannelLine line(const nlohmann::json& j, double at_s) { return {j.dump(), at_s}; }

std::vector<ChannelLine> timed_loop(double begin_s, double end_s) {
  return {line({{"phase", "samples_begin"}}, begin_s), line({{"phase", "samples_end"}}, end_s)};
}

ChildEnd exited(int code = 0) { return {ChildEnd::How::exited, code, 1.0}; }

TEST(WorkerProtocol, OneOutcomeWhoseSamplesFitTheParentsClockStands) {
  std::vector<ChannelLine> lines = timed_loop(1.0, 1.010);
  lines.push_back(line({{"outcome", outcome_to_json(passed_with_samples({1, 2, 3}))}}, 1.1));
  lines.push_back(line({{"done", true}}, 1.2));
  const CaseOutcome o = outcome_from_worker(exited(), lines, 60, "", true);
  EXPECT_EQ(o.status, CaseStatus::ran);
  EXPECT_EQ(o.validation.disposition, Disposition::passed);
  EXPECT_TRUE(o.flags.empty());
  EXPECT_EQ(o.containment, "completed");
}

TEST(WorkerProtocol, TheWorkersRecordedKernelsReachTheParent) {
  CaseOutcome recorded = passed_with_samples({});
  KernelLaunch k;
  k.mangled_name = "candidate_rmsnorm";
  k.grid = {70, 1, 1};
  k.block = {512, 1, 1};
  k.registers_per_thread = 32;
  recorded.launches = CaseLaunches::of({k, k});
  const CaseOutcome back = outcome_from_json(nlohmann::json::parse(outcome_to_json(recorded).dump()));
  ASSERT_TRUE(back.launches.has_value());
  ASSERT_EQ(back.launches->kernels.size(), 1u);
  EXPECT_EQ(back.launches->kernels[0].count, 2);
  EXPECT_EQ(back.launches->kernels[0].launch.grid, (LaunchDims{70, 1, 1}));
  EXPECT_EQ(back.launches->kernels[0].launch.block, (LaunchDims{512, 1, 1}));
  EXPECT_EQ(back.launches->kernels[0].launch.registers_per_thread, 32);
  recorded.launches = CaseLaunches::unavailable("not recorded (--no-launches)");
  const CaseOutcome off = outcome_from_json(nlohmann::json::parse(outcome_to_json(recorded).dump()));
  ASSERT_TRUE(off.launches.has_value());
  EXPECT_EQ(off.launches->reason, "not recorded (--no-launches)");
  recorded.launches.reset();
  EXPECT_FALSE(outcome_from_json(nlohmann::json::parse(outcome_to_json(recorded).dump())).launches.has_value());
}

TEST(WorkerProtocol, SamplesLongerThanTheLoopTheParentSawAreFlagged) {
  std::vector<ChannelLine> lines = timed_loop(1.0, 1.002);  // 2 ms seen, 60 ms reported
  lines.push_back(line({{"outcome", outcome_to_json(passed_with_samples({20, 20, 20}))}}, 1.1));
  const CaseOutcome o = outcome_from_worker(exited(), lines, 60, "", true);
  ASSERT_TRUE(o.has_flag(kFlagForgedResult));
  EXPECT_NE(o.flag_notes.at(kFlagForgedResult).find("add up to 60.000 ms"), std::string::npos)
      << o.flag_notes.at(kFlagForgedResult);
}

TEST(WorkerProtocol, SamplesWithoutATimedLoopTheParentSawAreFlagged) {
  const ChannelLine done = line({{"done", true}}, 0.9);
  const CaseOutcome o =
      outcome_from_worker(exited(), {line({{"outcome", outcome_to_json(passed_with_samples({1}))}}, 0.5), done}, 60, "", true);
  ASSERT_TRUE(o.has_flag(kFlagForgedResult));
  EXPECT_NE(o.flag_notes.at(kFlagForgedResult).find("the parent saw 0 start and 0 end"), std::string::npos)
      << o.flag_notes.at(kFlagForgedResult);
}

TEST(WorkerProtocol, ATimedRunsOutcomeNeedsSamplesAndACleanExitItsClosingLine) {
  const ChannelLine untimed = line({{"outcome", outcome_to_json(passed_with_samples({}))}}, 0.5);
  const ChannelLine done = line({{"done", true}}, 0.9);
  EXPECT_FALSE(outcome_from_worker(exited(), {untimed, done}, 60, "", false).has_flag(kFlagForgedResult))
      << "a validate-only run has no timed loop";
  CaseOutcome o = outcome_from_worker(exited(), {untimed, done}, 60, "", true);
  ASSERT_TRUE(o.has_flag(kFlagForgedResult));
  EXPECT_NE(o.flag_notes.at(kFlagForgedResult).find("no timed samples"), std::string::npos);
  o = outcome_from_worker(exited(), {untimed}, 60, "", false);
  ASSERT_TRUE(o.has_flag(kFlagForgedResult));
  EXPECT_NE(o.flag_notes.at(kFlagForgedResult).find("closes its report"), std::string::npos) << o.flag_notes.at(kFlagForgedResult);
}

TEST(WorkerProtocol, ASecondOutcomeOrAForeignLineMakesTheCaseAnError) {
  const nlohmann::json outcome = {{"outcome", outcome_to_json(passed_with_samples({}))}};
  for (const std::vector<ChannelLine>& lines :
       {std::vector<ChannelLine>{line(outcome, 0.1), line(outcome, 0.2)},
        std::vector<ChannelLine>{{"{\"outcome\": {\"status\": \"ran\"", 0.1}, line(outcome, 0.2)},
        std::vector<ChannelLine>{line(outcome, 0.1), line({{"verdict", "passed"}}, 0.2)}}) {
    const CaseOutcome o = outcome_from_worker(exited(), lines, 60, "", true);
    EXPECT_EQ(o.status, CaseStatus::error);
    EXPECT_EQ(o.containment, "forged");
    EXPECT_TRUE(o.has_flag(kFlagForgedResult));
    EXPECT_EQ(o.reason.rfind("the worker's result cannot be trusted: ", 0), 0u) << o.reason;
  }
}

TEST(WorkerProtocol, AHiddenShapeThatFailsOrKillsTheWorkerMakesThePassedCaseIncorrect) {
  const nlohmann::json outcome = {{"outcome", outcome_to_json(passed_with_samples({}))}};
  const nlohmann::json hidden = {{"hidden_problem", "rmsnorm_rows/m509_n509/fp32"}};
  const nlohmann::json failed = {
      {"hidden_shape", hidden_shape_to_json({"rmsnorm_rows/m509_n509/fp32", "incorrect", "uniform01: y: 3 unwritten"})}};
  const ChannelLine done = line({{"done", true}}, 0.4);
  CaseOutcome o =
      outcome_from_worker(exited(), {line(outcome, 0.1), line(hidden, 0.2), line(failed, 0.3), done}, 60, "", false);
  EXPECT_TRUE(o.flags.empty());
  EXPECT_EQ(o.validation.disposition, Disposition::incorrect);
  ASSERT_TRUE(o.validation.hidden_shape.has_value());
  EXPECT_EQ(o.validation.hidden_shape->verdict, "incorrect");

  o = outcome_from_worker({ChildEnd::How::signaled, SIGSEGV, 1.0}, {line(outcome, 0.1), line(hidden, 0.2)}, 60, "", false);
  EXPECT_EQ(o.status, CaseStatus::ran);
  EXPECT_EQ(o.validation.disposition, Disposition::incorrect);
  EXPECT_EQ(o.validation.hidden_shape->verdict, "crashed");
  EXPECT_EQ(o.validation.hidden_shape->problem, "rmsnorm_rows/m509_n509/fp32");

  const nlohmann::json refused = {{"hidden_shape", hidden_shape_to_json({"rmsnorm_rows/m509_n509/fp32", "refused",
                                                                          "rows of 4096 only"})}};
  o = outcome_from_worker(exited(), {line(outcome, 0.1), line(hidden, 0.2), line(refused, 0.3), done}, 60, "", false);
  EXPECT_EQ(o.validation.disposition, Disposition::passed) << "refusing the hidden shape is allowed";
}

TEST(WorkerProtocol, AWorkerWithoutAnOutcomeIsCrashedTimedOutOrABadInput) {
  CaseOutcome o = outcome_from_worker({ChildEnd::How::timed_out, 0, 4.0}, {}, 4, "", true);
  EXPECT_EQ(o.containment, "timed_out");
  EXPECT_EQ(o.reason, "timed out after 4 s");
  o = outcome_from_worker(exited(3), {line({{"fatal", "CUDA error: an illegal memory access"}}, 0.1)}, 60, "", true);
  EXPECT_EQ(o.containment, "crashed");
  EXPECT_EQ(o.reason, "crashed: CUDA error: an illegal memory access");
  o = outcome_from_worker(exited(2), {line({{"usage_error", "no such op"}}, 0.1)}, 60, "", true);
  EXPECT_EQ(o.status, CaseStatus::error);
  EXPECT_EQ(o.containment, "completed");
  EXPECT_EQ(o.reason, "no such op");
  o = outcome_from_worker({ChildEnd::How::signaled, SIGKILL, 1.0}, {}, 60, "", true);
  EXPECT_EQ(o.reason.rfind("crashed: SIGKILL", 0), 0u) << o.reason;
}

TEST(ChildProcess, CollectsTheLinesOfItsChannelAsTheyArrive) {
  const std::string log = testing::TempDir() + "channel.log";
  std::vector<ChannelLine> lines;
  const ChildEnd end =
      run_child({"sh", "-c", "echo '{\"a\": 1}' >&3; sleep 0.2; printf 'no newline' >&3; echo out"}, log, 10, {}, &lines);
  EXPECT_EQ(end.how, ChildEnd::How::exited);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "{\"a\": 1}");
  EXPECT_EQ(lines[1].text, "no newline");
  EXPECT_GE(lines[1].at_s - lines[0].at_s, 0.15) << "each line keeps the time it arrived";
  EXPECT_EQ(read_tail(log), "out\n");
}

}  // namespace
}  // namespace nb
