#include "harness/launches/kernel_launches.hpp"

#include <algorithm>

#include "harness/launches/kernel_names.hpp"

namespace nb {

bool KernelLaunch::same_launch_as(const KernelLaunch& o) const {
  return mangled_name == o.mangled_name && grid == o.grid && block == o.block && cluster == o.cluster &&
         registers_per_thread == o.registers_per_thread && static_shared_bytes == o.static_shared_bytes &&
         dynamic_shared_bytes == o.dynamic_shared_bytes && on_case_stream == o.on_case_stream;
}

namespace {

LaunchedKernel first_of_run(const KernelLaunch& launch) {
  LaunchedKernel k;
  k.launch = launch;
  k.demangled_name = demangled_kernel_name(launch.mangled_name);
  k.short_name = short_kernel_name(k.demangled_name);
  k.timed = launch.timed();
  if (k.timed) k.total_ns = k.min_ns = k.max_ns = launch.end_ns - launch.start_ns;
  return k;
}

void add_to_run(LaunchedKernel& k, const KernelLaunch& launch) {
  ++k.count;
  k.timed = k.timed && launch.timed();
  if (!k.timed) {
    k.total_ns = k.min_ns = k.max_ns = 0;
    return;
  }
  const std::uint64_t ns = launch.end_ns - launch.start_ns;
  k.total_ns += ns;
  k.min_ns = std::min(k.min_ns, ns);
  k.max_ns = std::max(k.max_ns, ns);
}

}  // namespace

std::vector<LaunchedKernel> merge_consecutive(const std::vector<KernelLaunch>& launches) {
  std::vector<LaunchedKernel> merged;
  for (const KernelLaunch& launch : launches) {
    if (!merged.empty() && merged.back().launch.same_launch_as(launch)) add_to_run(merged.back(), launch);
    else merged.push_back(first_of_run(launch));
  }
  return merged;
}

CaseLaunches CaseLaunches::unavailable(std::string why) {
  CaseLaunches c;
  c.reason = std::move(why);
  return c;
}

CaseLaunches CaseLaunches::of(const std::vector<KernelLaunch>& launches) {
  CaseLaunches c;
  c.available = true;
  c.kernels = merge_consecutive(launches);
  return c;
}

int CaseLaunches::launch_count() const {
  int n = 0;
  for (const LaunchedKernel& k : kernels) n += k.count;
  return n;
}

}  // namespace nb
