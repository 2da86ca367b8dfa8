#pragma once
// What one problem needs in memory before anything is allocated: its device tensors, the largest
// workspace of its variants and the L2 flush buffer on the GPU; the host copies of its inputs, the
// float64 references and the downloaded results in host memory. A problem that does not fit in
// what is free is skipped with the numbers, instead of ending the run in cudaMalloc or the OOM killer.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/tensors.hpp"

namespace nb {

struct MemoryFootprint {
  double device_bytes = 0;  // double: a hostile shape must not wrap around
  double host_bytes = 0;
};

struct FootprintInputs {
  std::vector<TensorDecl> decls;
  std::size_t workspace_bytes = 0;   // the largest among the problem's variants
  std::size_t flush_bytes = 0;       // the L2 flush buffer (0 when nothing is timed)
  bool fresh_buffers_per_trial = false;  // a second set of tensors and workspace lives during renewal
  // The float64 reference on the device (a double per element of every tensor, for the reference and
  // its program's scratch) and only the audit's slices on the host; else host copies throughout.
  bool device_reference = false;
};

// Host room kept for the audit of a device reference (its sampled slices and shared operands).
inline constexpr double kAuditHostBytes = 2.0 * (1 << 30);

// Room kept free on the device for the libraries' handles, streams and the CUDA context's own use.
inline constexpr double kDeviceHeadroomBytes = 512.0 * (1 << 20);

MemoryFootprint estimate_footprint(const FootprintInputs& in);

// How the timed-output check compares each timed launch's outputs (harness/device/timed_output_check.hpp):
// with a device copy of them (the snapshot) where it fits in the free device memory beside the
// headroom, else by digest; `note` says why a digest ("" for the snapshot). The snapshot is not
// part of estimate_footprint: a problem it does not fit is still timed, checked by digest.
struct OutputCheckPlan {
  bool snapshot = true;
  std::string note;
};
OutputCheckPlan plan_output_check(double snapshot_bytes, double free_device_bytes);

// "needs 137.0 GiB of device memory, 79.1 GiB free" (device checked first), or nullopt when it fits.
std::optional<std::string> why_it_does_not_fit(const MemoryFootprint& need, double free_device_bytes,
                                               double available_host_bytes);

std::string format_gib(double bytes);  // "137.0 GiB"

// MemAvailable of a /proc/meminfo text, in bytes; nullopt when the line is missing or malformed.
std::optional<double> parse_mem_available(const std::string& meminfo);

// MemAvailable of this host (or free physical pages when /proc/meminfo cannot be read).
double host_memory_available();

}  // namespace nb
