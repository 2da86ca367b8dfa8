#include "eval_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace nb::test {

namespace fs = std::filesystem;

std::string source_file(const std::string& relative) { return std::string(NORMBENCH_SOURCE_DIR) + "/" + relative; }

std::string planted(const std::string& file) {
  return std::string(NORMBENCH_PLANTED_DIR) + "/" + fs::path(file).stem().string() + ".so";
}

std::string example(const std::string& file) {
  return std::string(NORMBENCH_PLANTED_DIR) + "/example_" + fs::path(file).stem().string() + ".so";
}

EvalRun eval(const std::string& candidate, const std::string& args) {
  static int counter = 0;
  const fs::path out = fs::temp_directory_path() / ("normbench-eval-test-" + std::to_string(getpid()) + "-" +
                                                    std::to_string(counter++));
  fs::remove_all(out);
  const std::string log = out.string() + ".log";
  const std::string cmd = std::string(NORMBENCH_BINARY) + " eval " + candidate + " " + args + " --out " +
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

double median_ms(const nlohmann::json& row) {
  return row["timing"].is_object() ? row["timing"]["median_ms"].get<double>() : 0.0;
}

}  // namespace nb::test
