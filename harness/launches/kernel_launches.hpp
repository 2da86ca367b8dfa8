#pragma once
// What one case's kernels were, as CUPTI's activity records give them (launch_capture.hpp): each
// kernel a case's single untimed run launched, in launch order, with its geometry and resources.
// Plain data, free of CUPTI, so that the merging and the JSON form are tested without a GPU.
#include <cstdint>
#include <string>
#include <vector>

namespace nb {

struct LaunchDims {
  std::int64_t x = 1, y = 1, z = 1;
  bool operator==(const LaunchDims& o) const { return x == o.x && y == o.y && z == o.z; }
  bool operator!=(const LaunchDims& o) const { return !(*this == o); }
};

// One kernel as launched, one activity record.
struct KernelLaunch {
  std::string mangled_name;  // as the module names it (a C name is itself)
  LaunchDims grid, block;
  LaunchDims cluster;  // 1,1,1 when launched without a cluster
  int registers_per_thread = 0;
  std::int64_t static_shared_bytes = 0, dynamic_shared_bytes = 0;
  // GPU timestamps of the kernel's execution; both 0 when CUPTI could not collect them.
  std::uint64_t start_ns = 0, end_ns = 0;
  bool on_case_stream = true;  // false: it ran on a stream other than the one the case was given

  bool timed() const { return end_ns > start_ns; }
  // Same kernel, same geometry and resources, same stream: the launches a LaunchedKernel merges.
  bool same_launch_as(const KernelLaunch& o) const;
};

// A run of identical consecutive launches (KernelLaunch::same_launch_as), as one entry with a count,
// the way nsys's kernel summary counts instances. The durations are of the untimed run alone: no L2
// flush, no warm-up, CUPTI recording; the benchmark's figure is the case's timing, not these.
struct LaunchedKernel {
  KernelLaunch launch;  // the first of the run (its timestamps are not used)
  std::string demangled_name;  // the full C++ signature, or the mangled name where it does not demangle
  std::string short_name;      // the function's own name, without scopes, template arguments or parameters
  int count = 1;
  bool timed = false;          // every launch of the run had timestamps
  std::uint64_t total_ns = 0, min_ns = 0, max_ns = 0;  // over the run's launches, when timed
};

// What a case's launches record holds: the kernels, or why there are none.
struct CaseLaunches {
  bool available = false;
  std::string reason;                   // why not available ("" when available)
  std::vector<LaunchedKernel> kernels;  // in launch order
  std::uint64_t dropped_records = 0;    // activity records CUPTI dropped (a buffer was full): kernels missing

  static CaseLaunches unavailable(std::string why);
  static CaseLaunches of(const std::vector<KernelLaunch>& launches);  // merged, names demangled
  int launch_count() const;  // the kernels launched, the merged runs counted in full
};

// Merges each run of identical consecutive launches into one LaunchedKernel with its count and
// durations, keeping the order.
std::vector<LaunchedKernel> merge_consecutive(const std::vector<KernelLaunch>& launches);

}  // namespace nb
