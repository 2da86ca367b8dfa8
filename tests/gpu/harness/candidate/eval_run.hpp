#pragma once
// Runs `normbench eval` as a user would (a child process, its report read back) for the GPU tests
// of candidates: the planted ones of tests/candidates and the examples, built once into shared
// libraries by CMake (NORMBENCH_PLANTED_DIR), or a source file that eval compiles with nvcc.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nb::test {

struct EvalRun {
  int status = -1;
  nlohmann::json report;
  std::string output;
};

// A file of the source tree, a planted candidate's library ("zero_output.cu" -> its .so), and an
// example's ("rmsnorm_rows.cu" of examples/candidates -> example_rmsnorm_rows.so).
std::string source_file(const std::string& relative);
std::string planted(const std::string& file);
std::string example(const std::string& file);

// `normbench eval CANDIDATE ARGS --out TMP --quiet`, and the report it wrote.
EvalRun eval(const std::string& candidate, const std::string& args);

std::vector<nlohmann::json> external_rows(const EvalRun& run);
bool has_flag(const nlohmann::json& row, const std::string& flag);
double median_ms(const nlohmann::json& row);  // 0 when the row has no timing

// Validation on two distributions, three trials, short timing: the planted candidates' usual run.
inline constexpr const char* kFastArgs =
    "--op rmsnorm_rows --no-builtins --distributions uniform01,normal --trials 3 --min-time 0.02";

inline const std::string kSmall = "rmsnorm_rows/m64_n256/fp32";     // quick: many short rows
inline const std::string kOdd = "rmsnorm_rows/m5_n4097/fp32";       // quick: odd row length
inline const std::string kLarge = "rmsnorm_rows/m4096_n4096/fp32";  // kb: 128 MB moved, hidden work shows

}  // namespace nb::test
