// normbench eval end to end on the GPU: each planted candidate of tests/candidates goes through
// the real path a user's kernel takes (dlopen in a worker process, validation, timing, the report)
// and must get its expected verdict; the examples of examples/candidates, compiled by eval's nvcc
// step, must pass. The planted candidates are built once by CMake (eval_run.hpp); the exploits'
// twins are in candidate_exploits_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "eval_run.hpp"

namespace nb::test {
namespace {

// A candidate without nb_candidate_supports is taken to be written for float32: the bf16 and fp16
// problems of the quick suite are skipped with that reason, never launched on 2-byte tensors.
bool skipped_as_float32_only(const nlohmann::json& row) {
  const std::string problem = row["problem"];
  const bool narrow = problem.find("/bf16") != std::string::npos || problem.find("/fp16") != std::string::npos;
  if (!narrow) return false;
  EXPECT_EQ(row["status"], "skipped") << problem;
  EXPECT_NE(row.dump().find("nb_candidate_supports"), std::string::npos) << row.dump(1);
  return true;
}

// How many problems a comma-separated --problem list names.
std::size_t problem_count(const std::string& list) { return std::size_t(std::count(list.begin(), list.end(), ',')) + 1; }

// The checks of a correct candidate's row that hold with or without timing.
void expect_valid_row(const nlohmann::json& row) {
  EXPECT_EQ(row["disposition"], "passed") << row["problem"] << "\n" << row.dump(1);
  EXPECT_EQ(row["external"]["containment"], "completed");
  const nlohmann::json& hidden = row["validation"]["hidden_shape"];  // none for m1_n1: nothing to move
  if (!hidden.is_null()) {
    EXPECT_EQ(hidden["verdict"], "passed") << row["problem"] << ": " << hidden;
  }
}

// The flags of the timing's defences, none of which an honest candidate may raise.
void expect_no_false_alarm(const nlohmann::json& row) {
  for (const char* rule : {"allocates_in_launch", "timed_output_mismatch", "persisting_l2", "event_timer_mismatch",
                           "forged_result"})
    EXPECT_FALSE(has_flag(row, rule)) << row["problem"] << ": a false alarm\n" << row["flag_notes"];
}

// Quick problems of every rmsnorm_rows row plan (one element, tails under and past a warp, packs,
// many short rows, an odd row, a cluster-staged row, an odd registers-over-a-cluster row, a
// streamed one) and two narrow ones a float32 candidate declines. The whole quick suite (57
// problems, a worker each) took 158 s of the H100's GPU tests here, and 218 s for the example
// below, the longest two after the BatchNorm example: the worker's path does not change with
// the shape; the built-ins' every-problem coverage is AllOps/QuickSuite's.
const char* const kRowPlans =
    "rmsnorm_rows/m1_n1/fp32,rmsnorm_rows/m7_n3/fp32,rmsnorm_rows/m5_n33/fp32,rmsnorm_rows/m7_n1004/fp32,"
    "rmsnorm_rows/m64_n256/fp32,rmsnorm_rows/m5_n4097/fp32,rmsnorm_rows/m4_n20000/fp32,rmsnorm_rows/m4_n65537/fp32,"
    "rmsnorm_rows/m1_n524288/fp32,rmsnorm_rows/m7_n3/bf16,rmsnorm_rows/m1_n4096/fp16";

// Validation alone shares the GPU (ctest -j): every distribution.
TEST(CandidateEval, TheCorrectCandidateIsValidOnEveryRowPlan) {
  const EvalRun run =
      eval(planted("correct.cu"), std::string("--op rmsnorm_rows --no-builtins --validate-only --problem ") + kRowPlans);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), problem_count(kRowPlans)) << run.output;
  int narrow = 0;
  for (const auto& row : rows) {
    if (skipped_as_float32_only(row)) {
      ++narrow;
      continue;
    }
    expect_valid_row(row);
  }
  EXPECT_EQ(narrow, 2) << "the list has a bf16 and an fp16 problem";
  EXPECT_EQ(run.status, 0) << run.output;
}

// Timed (alone: its flags depend on the timing), on quick problems of each row plan (one element,
// many short rows, an odd length, a staged row, one long row) and a bf16 one it declines: no
// false alarm, and the output check after the timed loop compares a snapshot.
TEST(CandidateEval, ACorrectCandidateRaisesNoFlagWhenTimed) {
  const EvalRun run = eval(planted("correct.cu"),
                           "--op rmsnorm_rows --no-builtins --min-time 0.02 --problem rmsnorm_rows/m1_n1/fp32," +
                               kSmall + "," + kOdd + ",rmsnorm_rows/m4_n20000/fp32,rmsnorm_rows/m1_n524288/fp32,"
                               "rmsnorm_rows/m7_n3/bf16");
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), 6u) << run.output;
  for (const auto& row : rows) {
    if (skipped_as_float32_only(row)) continue;
    expect_valid_row(row);
    EXPECT_TRUE(row["validation"]["after_timing"].is_object());
    expect_no_false_alarm(row);
    EXPECT_EQ(row["timing"]["output_check"]["compared"], "snapshot") << row["problem"];
  }
  EXPECT_EQ(run.status, 0) << run.output;
}

struct Example {
  std::string file;  // under examples/candidates
  std::string op;
  std::string validated_problems;  // quick problems of each of the op's kinds
  std::string timed_problems;
};

void PrintTo(const Example& e, std::ostream* os) { *os << e.file; }

const Example kExamples[] = {
    {"rmsnorm_rows.cu", "rmsnorm_rows", kRowPlans, "rmsnorm_rows/m5_n4097/fp32,rmsnorm_rows/m4096_n4096/fp32"},
    // 1-d batches (a tail of channels, C = 37), C = 1, an odd H*W, a 4-d batch, long runs: the
    // whole quick suite (15 problems) took 104 s
    {"batchnorm_train.cu", "batchnorm_train",
     "batchnorm_train/n2_c64/fp32,batchnorm_train/n1000_c37/fp32,batchnorm_train/n4_c1_h7_w9/fp32,"
     "batchnorm_train/n3_c5_h131_w129/fp32,batchnorm_train/n16_c64_h32_w32/fp32,batchnorm_train/n2_c3_h96_w192/fp32",
     "batchnorm_train/n3_c7/fp32,batchnorm_train/n16_c64_h32_w32/fp32"}};

std::string example_name(const testing::TestParamInfo<Example>& info) {
  return info.param.file.substr(0, info.param.file.size() - 3);
}

class ExampleCandidate : public testing::TestWithParam<Example> {};

// Compiled by eval's own nvcc step, as a user's file is, and validated beside the naive built-in
// on quick problems of each of the op's kinds (side by side with the other tests: validation only).
TEST_P(ExampleCandidate, CompilesAndIsValidOnEveryKindOfProblem) {
  const Example& e = GetParam();
  const EvalRun run = eval(source_file("examples/candidates/" + e.file),
                           "--op " + e.op + " --variant naive --validate-only --problem " + e.validated_problems);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), problem_count(e.validated_problems)) << run.output;
  for (const auto& row : rows) {
    if (skipped_as_float32_only(row)) continue;
    EXPECT_EQ(row["disposition"], "passed") << row["problem"] << "\n" << row.dump(1);
    EXPECT_EQ(row["external"]["source_sha256"].get<std::string>().size(), 64u);
    EXPECT_NE(row["external"]["compile_command"].get<std::string>().find("nvcc"), std::string::npos);
  }
  EXPECT_EQ(run.status, 0) << run.output;
}

// Timed beside the naive built-in (alone), from the library CMake built of the same file: passed,
// with no false alarm.
TEST_P(ExampleCandidate, PassesBesideTheBuiltinsWhenTimed) {
  const Example& e = GetParam();
  const EvalRun run = eval(example(e.file), "--op " + e.op + " --variant naive --min-time 0.02 --problem " +
                                                e.timed_problems);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), 2u) << run.output;
  for (const auto& row : rows) {
    EXPECT_EQ(row["disposition"], "passed") << row["problem"] << "\n" << row.dump(1);
    expect_no_false_alarm(row);
  }
  EXPECT_EQ(run.status, 0) << run.output;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleCandidate, testing::ValuesIn(kExamples), example_name);

struct Planted {
  std::string file;
  std::string problem;
};

void PrintTo(const Planted& p, std::ostream* os) { *os << p.file << " on " << p.problem; }

class IncorrectCandidate : public testing::TestWithParam<Planted> {};

TEST_P(IncorrectCandidate, IsIncorrectOnEveryDistribution) {
  const EvalRun run = eval(planted(GetParam().file), std::string(kFastArgs) + " --problem " + GetParam().problem);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), 1u) << run.output;
  const auto& row = rows[0];
  EXPECT_EQ(row["status"], "ran") << row.dump(1);
  EXPECT_EQ(row["disposition"], "incorrect") << row.dump(1);
  for (const auto& d : row["validation"]["per_distribution"]) {
    EXPECT_EQ(d["verdict"], "failed") << d.dump(1);
    if (GetParam().file == "one_unwritten.cu") {
      EXPECT_EQ(d["unwritten"], 1);
    } else if (GetParam().file == "writes_input.cu") {
      EXPECT_TRUE(d["input_modified"].get<bool>());
    } else if (GetParam().file == "zero_output.cu") {
      EXPECT_NEAR(d["normwise_error"].get<double>(), 1.0, 1e-6);
    }
  }
  EXPECT_EQ(run.status, 1);
}

INSTANTIATE_TEST_SUITE_P(Planted, IncorrectCandidate,
                         testing::Values(Planted{"zero_output.cu", kSmall}, Planted{"one_unwritten.cu", kSmall},
                                         Planted{"writes_input.cu", kSmall}, Planted{"caches_first_result.cu", kOdd}),
                         [](const testing::TestParamInfo<Planted>& info) {
                           return info.param.file.substr(0, info.param.file.size() - 3);
                         });

// Four quick problems of the four layouts' kinds (1d batch, tiny 1d, C = 1, a 4d batch): the whole
// quick suite took 98 s of the GPU tests' critical path to say the same.
TEST(CandidateEval, BatchNormInInferenceFormIsIncorrectOnEveryDistribution) {
  const EvalRun run = eval(planted("batchnorm_inference.cu"),
                           "--op batchnorm_train --no-builtins --validate-only --full-validation --problem "
                           "batchnorm_train/n2_c64/fp32,batchnorm_train/n3_c7/fp32,batchnorm_train/n4_c1_h7_w9/fp32,"
                           "batchnorm_train/n16_c64_h32_w32/fp32");
  const auto rows = external_rows(run);
  ASSERT_FALSE(rows.empty()) << run.output;
  for (const auto& row : rows) {
    EXPECT_EQ(row["disposition"], "incorrect") << row["problem"];
    for (const auto& d : row["validation"]["per_distribution"])
      EXPECT_EQ(d["verdict"], "failed") << row["problem"] << " " << d["distribution"];
  }
  EXPECT_EQ(run.status, 1);
}

TEST(CandidateEval, SkippingWorkAfterWarmUpFailsTheCheckAfterTheTimedLoop) {
  const EvalRun run = eval(planted("skips_after_warmup.cu"), std::string(kFastArgs) + " --problem " + kSmall);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), 1u) << run.output;
  for (const auto& d : rows[0]["validation"]["per_distribution"]) EXPECT_EQ(d["verdict"], "passed") << d.dump(1);
  const auto& after = rows[0]["validation"]["after_timing"];
  ASSERT_TRUE(after.is_object()) << rows[0].dump(1);
  EXPECT_EQ(after["verdict"], "failed");
  EXPECT_GT(after["unwritten"].get<long>(), 0);
  EXPECT_EQ(rows[0]["disposition"], "incorrect");
  EXPECT_EQ(run.status, 1);
}

TEST(CandidateEval, AllocatingInLaunchIsFlagged) {
  const EvalRun run = eval(planted("allocates_in_launch.cu"), std::string(kFastArgs) + " --problem " + kSmall);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), 1u) << run.output;
  // Its outputs are right, but a rule of the timed path was broken: flagged, never passed.
  EXPECT_EQ(rows[0]["disposition"], "flagged") << rows[0].dump(1);
  EXPECT_TRUE(has_flag(rows[0], "allocates_in_launch")) << rows[0]["flags"];
  EXPECT_EQ(run.status, 1);
}

TEST(CandidateEval, WorkOnAnotherStreamIsCaught) {
  const EvalRun run = eval(planted("other_stream.cu"),
                           "--op rmsnorm_rows --no-builtins --trials 1 --min-time 0.05 --problem " + kLarge);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), 1u) << run.output;
  const auto& row = rows[0];
  EXPECT_TRUE(row["disposition"] == "incorrect" || has_flag(row, "escapes_stream") ||
              has_flag(row, "faster_than_light"))
      << row.dump(1);
  EXPECT_EQ(run.status, 1);
}

class CrashingCandidate : public testing::TestWithParam<std::pair<std::string, std::string>> {};

// Two problems, the naive built-in beside: every candidate case gets its verdict, the built-in
// rows are complete, and the report is written. The watchdog is short: a worker that hangs is
// killed after 4 s, whether it got to its first launch or not.
TEST_P(CrashingCandidate, IsContainedAndTheRunGoesOn) {
  const auto& [file, verdict] = GetParam();
  const EvalRun run = eval(planted(file), "--op rmsnorm_rows --variant naive --distributions uniform01 "
                           "--min-time 0.02 --case-timeout 4 --problem " + kSmall + "," + kOdd);
  ASSERT_TRUE(run.report.is_object()) << run.output;
  int builtin = 0, candidate = 0;
  for (const auto& row : run.report["results"]) {
    if (row["external"].is_null()) {
      ++builtin;
      EXPECT_EQ(row["disposition"], "passed") << row.dump(1);
      EXPECT_TRUE(row["timing"].is_object());
    } else {
      ++candidate;
      EXPECT_EQ(row["status"], "error");
      EXPECT_EQ(row["external"]["containment"], verdict) << row.dump(1);
      const std::string error = row["error"];
      EXPECT_EQ(error.rfind(verdict == "timed_out" ? "timed out after 4 s" : "crashed: ", 0), 0u) << error;
    }
  }
  EXPECT_EQ(builtin, 2);
  EXPECT_EQ(candidate, 2);
  EXPECT_EQ(run.status, 1);
}

INSTANTIATE_TEST_SUITE_P(Planted, CrashingCandidate,
                         testing::Values(std::pair{std::string("illegal_address.cu"), std::string("crashed")},
                                         std::pair{std::string("host_segfault.cu"), std::string("crashed")},
                                         std::pair{std::string("infinite_loop.cu"), std::string("timed_out")}),
                         [](const auto& info) { return info.param.first.substr(0, info.param.first.size() - 3); });

}  // namespace
}  // namespace nb::test
