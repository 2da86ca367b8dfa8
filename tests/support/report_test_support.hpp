#pragma once
// Fixtures and small builders shared by the report tests (tests/data/report_fixture*.json).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "temp_folder.hpp"

namespace nb::test {

inline std::string fixture_path(const std::string& name) { return std::string(NORMBENCH_TEST_DATA_DIR) + "/" + name; }

inline nlohmann::json load_fixture(const std::string& name) {
  std::ifstream in(fixture_path(name));
  return nlohmann::json::parse(in);
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first result row of `report` with this variant and problem name.
inline nlohmann::json& result_row(nlohmann::json& report, const std::string& variant, const std::string& problem_name) {
  for (auto& row : report["results"])
    if (row["variant"] == variant && row["problem_name"] == problem_name) return row;
  throw std::runtime_error("fixture has no row " + variant + " " + problem_name);
}

// A minimal report with one timed, passing row per (variant, median, spread) given.
inline nlohmann::json tiny_report(const std::string& gpu, const std::vector<std::tuple<std::string, double, double>>& rows) {
  nlohmann::json report = {{"schema", "normbench.report"}, {"schema_version", 1},
                           {"provenance", {{"gpu", {{"name", gpu}}}}}, {"ceilings", {{"copy_gbps", 1000.0}}},
                           {"results", nlohmann::json::array()}};
  for (const auto& [variant, median, spread] : rows)
    report["results"].push_back(
        {{"op", "softmax"}, {"variant", variant}, {"problem", "softmax/m16_n16384/fp32"}, {"problem_name", "m16_n16384"},
         {"status", "ran"}, {"disposition", "passed"}, {"flags", nlohmann::json::array()},
         {"timing", {{"median_ms", median}, {"p10_ms", median * (1 - spread / 2)}, {"p90_ms", median * (1 + spread / 2)}}},
         {"gbps", 1.0 / median}, {"pct_of_copy", 0.1 / median}});
  return report;
}

inline void write_json(const std::string& path, const nlohmann::json& value) { std::ofstream(path) << value.dump(1); }

}  // namespace nb::test
