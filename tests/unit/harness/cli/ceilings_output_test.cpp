// What `normbench ceilings` prints, from given measurements: the copy line keeps its words and
// comes first, the pattern table follows in order with % of peak, and --json carries the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli/ceilings_output.hpp"

namespace nb {
namespace {

GpuInfo test_gpu() {
  GpuInfo gpu;
  gpu.name = "Test GPU";
  gpu.sm_count = 132;
  gpu.l2_bytes = std::size_t(50) << 20;
  gpu.memory_clock_mhz = 2619;
  gpu.memory_bus_bits = 5120;
  return gpu;
}

BandwidthCeiling test_copy() {
  BandwidthCeiling c;
  c.copy_gbps = 3000;
  c.copy_cv = 0.004;
  c.copy_bytes = std::size_t(1) << 30;
  c.copy_samples = 30;
  c.peak_gbps = 4000;
  return c;
}

std::vector<PatternCeiling> test_patterns() {
  return {{"read", "1 read", 3600, 0.002, std::size_t(1) << 30, 30},
          {"write", "1 write", 3200, 0.01, std::size_t(1) << 30, 30},
          {"read2_write1", "2 reads + 1 write", 3400, 0.003, std::size_t(3) << 28, 30}};
}

// The text's lines with runs of spaces collapsed, so a test reads cells, not column widths.
std::vector<std::string> collapsed_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string collapsed;
    for (std::string word; words >> word;) collapsed += (collapsed.empty() ? "" : " ") + word;
    lines.push_back(collapsed);
  }
  return lines;
}

std::size_t line_of(const std::vector<std::string>& lines, const std::string& wanted) {
  const auto at = std::find(lines.begin(), lines.end(), wanted);
  EXPECT_NE(at, lines.end()) << "no line '" << wanted << "'";
  return static_cast<std::size_t>(at - lines.begin());
}

TEST(CeilingsOutput, CopyLineFirstThenOneTableRowPerPatternInOrder) {
  const std::string text = render_ceilings_text(test_gpu(), test_copy(), test_patterns());
  const std::vector<std::string> lines = collapsed_lines(text);
  SCOPED_TRACE(text);
  EXPECT_EQ(line_of(lines, "Test GPU (132 SMs, L2 50 MiB, memory clock 2619 MHz x 5120 bits)"), 0u);
  EXPECT_EQ(line_of(lines, "measured device-to-device copy: 3000.0 GB/s (read+write, 1024 MiB x 30 samples, cv 0.004)"),
            1u);
  EXPECT_EQ(line_of(lines, "theoretical peak: 4000.0 GB/s; measured is 75.0% of it"), 2u);
  const std::size_t header = line_of(lines, "pattern traffic GB/s % of peak cv moved/sample samples");
  // copy moves each byte twice (2 GiB for 1 GiB copied); read2_write1 moves its three streams.
  EXPECT_EQ(line_of(lines, "copy 1 read + 1 write 3000.0 75.0 0.004 2 GiB 30"), header + 2);
  EXPECT_EQ(line_of(lines, "read 1 read 3600.0 90.0 0.002 1 GiB 30"), header + 3);
  EXPECT_EQ(line_of(lines, "write 1 write 3200.0 80.0 0.010 1 GiB 30"), header + 4);
  EXPECT_EQ(line_of(lines, "read2_write1 2 reads + 1 write 3400.0 85.0 0.003 768 MiB 30"), header + 5);
}

TEST(CeilingsOutput, JsonCarriesTheSameRowsCopyFirst) {
  const nlohmann::json doc = ceilings_to_json(test_gpu(), test_copy(), test_patterns());
  EXPECT_EQ(doc["gpu"]["name"], "Test GPU");
  EXPECT_EQ(doc["gpu"]["sm_count"], 132);
  EXPECT_DOUBLE_EQ(doc["peak_gbps"].get<double>(), 4000);
  const nlohmann::json& rows = doc["patterns"];
  ASSERT_EQ(rows.size(), 4u);
  const std::vector<std::string> order = {"copy", "read", "write", "read2_write1"};
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(rows[i]["pattern"], order[i]);
  EXPECT_EQ(rows[0]["traffic"], "1 read + 1 write");
  EXPECT_EQ(rows[0]["bytes_moved"].get<std::size_t>(), std::size_t(2) << 30);
  EXPECT_DOUBLE_EQ(rows[0]["pct_of_peak"].get<double>(), 75.0);
  EXPECT_DOUBLE_EQ(rows[3]["gbps"].get<double>(), 3400);
  EXPECT_DOUBLE_EQ(rows[3]["pct_of_peak"].get<double>(), 85.0);
  EXPECT_DOUBLE_EQ(rows[3]["cv"].get<double>(), 0.003);
  EXPECT_EQ(rows[3]["samples"], 30);
}

TEST(CeilingsOutput, UnknownPeakIsNullNotADivisionByZero) {
  BandwidthCeiling copy = test_copy();
  copy.peak_gbps = 0;
  const nlohmann::json doc = ceilings_to_json(test_gpu(), copy, test_patterns());
  for (const auto& row : doc["patterns"]) EXPECT_TRUE(row["pct_of_peak"].is_null()) << row.dump();
  EXPECT_FALSE(pct_of_peak(3000, 0).has_value());
}

}  // namespace
}  // namespace nb
