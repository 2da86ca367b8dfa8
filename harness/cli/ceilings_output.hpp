#pragma once
// What `normbench ceilings` prints: the GPU, the copy ceiling in its long-standing words, then a
// table with one row per access pattern (copy first) against the theoretical peak; or the same
// as the --json document.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "harness/timing/bandwidth_ceiling.hpp"
#include "harness/device/gpu_info.hpp"
#include "harness/timing/stream_ceilings.hpp"

namespace nb {

// The cudaMemcpyAsync copy as a pattern row: every copied byte is read once and written once.
PatternCeiling copy_pattern(const BandwidthCeiling& copy);

// 100 * gbps / peak, or nothing when the peak is unknown (zero).
std::optional<double> pct_of_peak(double gbps, double peak_gbps);

// `patterns` are the kernel-measured ones; the copy row is added before them.
std::string render_ceilings_text(const GpuInfo& gpu, const BandwidthCeiling& copy,
                                 const std::vector<PatternCeiling>& patterns);

// {"gpu": {...}, "peak_gbps": P, "patterns": [{"pattern", "traffic", "gbps", "pct_of_peak", "cv",
// "bytes_moved", "samples"}, ...]}, copy first.
nlohmann::json ceilings_to_json(const GpuInfo& gpu, const BandwidthCeiling& copy,
                                const std::vector<PatternCeiling>& patterns);

}  // namespace nb
