// normbench eval end to end on the GPU: each planted candidate of tests/candidates goes through
// the real path a user's kernel takes (nvcc, dlopen in a worker process, validation, timing, the
// report) and must get its expected verdict; the examples of examples/candidates must pass.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace nb::test {
namespace {

namespace fs = std::filesystem;

const std::string kSmall = "rmsnorm_rows/m64_n256/fp32";   // quick: many short rows
const std::string kOdd = "rmsnorm_rows/m5_n4097/fp32";     // quick: odd row length
const std::string kLarge = "rmsnorm_rows/m4096_n4096/fp32"; // 128 MB moved: hidden work shows

struct EvalRun {
  int status = -1;
  nlohmann::json report;
  std::string output;
};

std::string candidate(const std::string& file) { return std::string(NORMBENCH_SOURCE_DIR) + "/" + file; }

// Runs `normbench eval FILE ARGS --out TMP --quiet` and reads the report it wrote.
EvalRun eval(const std::string& file, const std::string& args) {
  static int counter = 0;
  const fs::path out = fs::temp_directory_path() / ("normbench-eval-test-" + std::to_string(getpid()) + "-" +
                                                    std::to_string(counter++));
  fs::remove_all(out);
  const std::string log = out.string() + ".log";
  const std::string cmd = std::string(NORMBENCH_BINARY) + " eval " + candidate(file) + " " + args + " --out " +
                          out.string() + " --quiet > " + log + " 2>&1";
  EvalRun run;
  const int raw = std::system(cmd.c_str());
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream log_in(log);
  run.output.assign(std::istreambuf_iterator<char>(log_in), {});
  std::error_code error;
  for (const auto& e : fs::recursive_directory_iterator(out, error))
    if (e.path().filename() == "report.json") run.report = nlohmann::json::parse(std::ifstream(e.path()));
  return run;
}

std::vector<nlohmann::json> external_rows(const EvalRun& run) {
  std::vector<nlohmann::json> rows;
  if (run.report.is_object())
    for (const auto& row : run.report["results"])
      if (row["external"].is_object()) rows.push_back(row);
  return rows;
}

bool has_flag(const nlohmann::json& row, const std::string& flag) {
  for (const auto& f : row["flags"])
    if (f == flag) return true;
  return false;
}

const char* kFastArgs = "--op rmsnorm_rows --no-builtins --distributions uniform01,normal --trials 3 --min-time 0.02";

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

TEST(CandidateEval, ACorrectCandidatePassesTheQuickSuite) {
  const EvalRun run = eval("tests/candidates/correct.cu", "--op rmsnorm_rows --suite quick --no-builtins --min-time 0.02");
  const auto rows = external_rows(run);
  ASSERT_FALSE(rows.empty()) << run.output;
  int narrow = 0;
  for (const auto& row : rows) {
    if (skipped_as_float32_only(row)) {
      ++narrow;
      continue;
    }
    EXPECT_EQ(row["disposition"], "passed") << row["problem"] << "\n" << row.dump(1);
    EXPECT_EQ(row["external"]["containment"], "completed");
    EXPECT_TRUE(row["validation"]["after_timing"].is_object());
    EXPECT_FALSE(has_flag(row, "allocates_in_launch"));
  }
  EXPECT_GT(narrow, 0) << "the quick suite has bf16 and fp16 problems";
  EXPECT_EQ(run.status, 0) << run.output;
}

TEST(CandidateEval, TheExamplesPassBesideTheBuiltins) {
  for (const auto& [file, op] : {std::pair{"examples/candidates/rmsnorm_rows.cu", "rmsnorm_rows"},
                                 {"examples/candidates/batchnorm_train.cu", "batchnorm_train"}}) {
    const EvalRun run = eval(file, std::string("--op ") + op + " --suite quick --variant naive --min-time 0.02");
    const auto rows = external_rows(run);
    ASSERT_FALSE(rows.empty()) << run.output;
    for (const auto& row : rows) {
      if (skipped_as_float32_only(row)) continue;
      EXPECT_EQ(row["disposition"], "passed") << row["problem"] << "\n" << row.dump(1);
      EXPECT_EQ(row["external"]["source_sha256"].get<std::string>().size(), 64u);
      EXPECT_NE(row["external"]["compile_command"].get<std::string>().find("nvcc"), std::string::npos);
    }
    EXPECT_EQ(run.status, 0) << run.output;
  }
}

struct Planted {
  std::string file;
  std::string problem;
};

void PrintTo(const Planted& p, std::ostream* os) { *os << p.file << " on " << p.problem; }

class IncorrectCandidate : public testing::TestWithParam<Planted> {};

TEST_P(IncorrectCandidate, IsIncorrectOnEveryDistribution) {
  const EvalRun run = eval("tests/candidates/" + GetParam().file, std::string(kFastArgs) + " --problem " + GetParam().problem);
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

TEST(CandidateEval, BatchNormInInferenceFormIsIncorrectOnEveryDistribution) {
  const EvalRun run = eval("tests/candidates/batchnorm_inference.cu",
                           "--op batchnorm_train --suite quick --no-builtins --validate-only --full-validation");
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
  const EvalRun run = eval("tests/candidates/skips_after_warmup.cu", std::string(kFastArgs) + " --problem " + kSmall);
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
  const EvalRun run = eval("tests/candidates/allocates_in_launch.cu", std::string(kFastArgs) + " --problem " + kSmall);
  const auto rows = external_rows(run);
  ASSERT_EQ(rows.size(), 1u) << run.output;
  EXPECT_EQ(rows[0]["disposition"], "passed") << rows[0].dump(1);
  EXPECT_TRUE(has_flag(rows[0], "allocates_in_launch")) << rows[0]["flags"];
  EXPECT_EQ(run.status, 1);
}

TEST(CandidateEval, WorkOnAnotherStreamIsCaught) {
  const EvalRun run = eval("tests/candidates/other_stream.cu",
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
// rows are complete, and the report is written.
TEST_P(CrashingCandidate, IsContainedAndTheRunGoesOn) {
  const auto& [file, verdict] = GetParam();
  const EvalRun run = eval("tests/candidates/" + file, "--op rmsnorm_rows --variant naive --distributions uniform01 "
                           "--min-time 0.02 --case-timeout 20 --problem " + kSmall + "," + kOdd);
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
      EXPECT_EQ(error.rfind(verdict == "timed_out" ? "timed out after 20 s" : "crashed: ", 0), 0u) << error;
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
