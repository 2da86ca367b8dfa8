#include "harness/cli/ceilings_output.hpp"

#include <iomanip>
#include <sstream>

#include "harness/report/json_nulls.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/text_table.hpp"

namespace nb {
namespace {

std::vector<PatternCeiling> with_copy_first(const BandwidthCeiling& copy, const std::vector<PatternCeiling>& patterns) {
  std::vector<PatternCeiling> rows = {copy_pattern(copy)};
  rows.insert(rows.end(), patterns.begin(), patterns.end());
  return rows;
}

}  // namespace

PatternCeiling copy_pattern(const BandwidthCeiling& copy) {
  PatternCeiling c;
  c.pattern = "copy";
  c.traffic = "1 read + 1 write";
  c.gbps = copy.copy_gbps;
  c.cv = copy.copy_cv;
  c.bytes_moved = 2 * copy.copy_bytes;
  c.samples = copy.copy_samples;
  return c;
}

std::optional<double> pct_of_peak(double gbps, double peak_gbps) {
  if (peak_gbps <= 0) return std::nullopt;
  return 100.0 * gbps / peak_gbps;
}

std::string render_ceilings_text(const GpuInfo& gpu, const BandwidthCeiling& copy,
                                 const std::vector<PatternCeiling>& patterns) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  out << gpu.name << " (" << gpu.sm_count << " SMs, L2 " << gpu.l2_bytes / (1 << 20) << " MiB, memory clock "
      << gpu.memory_clock_mhz << " MHz x " << gpu.memory_bus_bits << " bits)\n";
  out << "measured device-to-device copy: " << copy.copy_gbps << " GB/s (read+write, " << copy.copy_bytes / (1 << 20)
      << " MiB x " << copy.copy_samples << " samples, cv " << std::setprecision(3) << copy.copy_cv << ")\n";
  out << std::setprecision(1) << "theoretical peak: " << copy.peak_gbps << " GB/s; measured is "
      << 100.0 * copy.copy_gbps / copy.peak_gbps << "% of it\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const PatternCeiling& p : with_copy_first(copy, patterns))
    rows.push_back({p.pattern, p.traffic, format_fixed(p.gbps, 1), format_or_dash(pct_of_peak(p.gbps, copy.peak_gbps), 1),
                    format_fixed(p.cv, 3), format_bytes(static_cast<double>(p.bytes_moved)), std::to_string(p.samples)});
  out << render_text_table({"pattern", "traffic", "GB/s", "% of peak", "cv", "moved/sample", "samples"}, rows,
                           {2, 3, 4, 5, 6});
  out << "\nGB/s = (bytes read + bytes written) / median time. copy (cudaMemcpyAsync) is the ceiling run reports\n"
         "compare against; read, write and read2_write1 are float4 kernels, a contiguous chunk per block (harness/timing/stream_ceilings.cu).\n";
  return out.str();
}

nlohmann::json ceilings_to_json(const GpuInfo& gpu, const BandwidthCeiling& copy,
                                const std::vector<PatternCeiling>& patterns) {
  nlohmann::json rows = nlohmann::json::array();
  for (const PatternCeiling& p : with_copy_first(copy, patterns)) {
    const std::optional<double> pct = pct_of_peak(p.gbps, copy.peak_gbps);
    rows.push_back({{"pattern", p.pattern},
                    {"traffic", p.traffic},
                    {"gbps", p.gbps},
                    {"pct_of_peak", optional_json(pct)},
                    {"cv", p.cv},
                    {"bytes_moved", p.bytes_moved},
                    {"samples", p.samples}});
  }
  return {{"gpu",
           {{"name", gpu.name},
            {"uuid", gpu.uuid},
            {"compute_capability", gpu.compute_capability},
            {"sm_count", gpu.sm_count},
            {"l2_bytes", gpu.l2_bytes},
            {"memory_clock_mhz", gpu.memory_clock_mhz},
            {"memory_bus_bits", gpu.memory_bus_bits}}},
          {"peak_gbps", copy.peak_gbps},
          {"patterns", rows}};
}

}  // namespace nb
