#include "harness/report/json/launches_json.hpp"

namespace nb {
namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

ojson dims_json(const LaunchDims& d) { return ojson::array({d.x, d.y, d.z}); }

LaunchDims dims_from(const json& j) {
  return {j.at(0).get<std::int64_t>(), j.at(1).get<std::int64_t>(), j.at(2).get<std::int64_t>()};
}

// The kernel's time in the untimed run, over its merged launches; null without CUPTI timestamps.
ojson untimed_ns_json(const LaunchedKernel& k) {
  if (!k.timed) return nullptr;
  return {{"total", k.total_ns}, {"min", k.min_ns}, {"max", k.max_ns}};
}

ojson kernel_json(const LaunchedKernel& k) {
  const KernelLaunch& l = k.launch;
  return {{"name", k.short_name},
          {"demangled", k.demangled_name},
          {"mangled", l.mangled_name},
          {"count", k.count},
          {"grid", dims_json(l.grid)},
          {"block", dims_json(l.block)},
          {"cluster", dims_json(l.cluster)},
          {"registers_per_thread", l.registers_per_thread},
          {"static_shared_bytes", l.static_shared_bytes},
          {"dynamic_shared_bytes", l.dynamic_shared_bytes},
          {"on_case_stream", l.on_case_stream},
          {"untimed_ns", untimed_ns_json(k)}};
}

LaunchedKernel kernel_from(const json& j) {
  LaunchedKernel k;
  k.short_name = j.at("name");
  k.demangled_name = j.at("demangled");
  KernelLaunch& l = k.launch;
  l.mangled_name = j.at("mangled");
  k.count = j.at("count");
  l.grid = dims_from(j.at("grid"));
  l.block = dims_from(j.at("block"));
  l.cluster = dims_from(j.at("cluster"));
  l.registers_per_thread = j.at("registers_per_thread");
  l.static_shared_bytes = j.at("static_shared_bytes");
  l.dynamic_shared_bytes = j.at("dynamic_shared_bytes");
  l.on_case_stream = j.at("on_case_stream");
  const json& ns = j.at("untimed_ns");
  k.timed = !ns.is_null();
  if (!k.timed) return k;
  k.total_ns = ns.at("total");
  k.min_ns = ns.at("min");
  k.max_ns = ns.at("max");
  return k;
}

}  // namespace

ojson case_launches_json(const CaseLaunches& c) {
  if (!c.available) return {{"available", false}, {"reason", c.reason}};
  ojson kernels = ojson::array();
  for (const LaunchedKernel& k : c.kernels) kernels.push_back(kernel_json(k));
  return {{"available", true},
          {"kernel_launches", c.launch_count()},
          {"dropped_records", c.dropped_records},
          {"kernels", kernels}};
}

CaseLaunches case_launches_from(const json& j) {
  if (!j.at("available").get<bool>()) return CaseLaunches::unavailable(j.at("reason"));
  CaseLaunches c;
  c.available = true;
  c.dropped_records = j.at("dropped_records");
  for (const json& k : j.at("kernels")) c.kernels.push_back(kernel_from(k));
  return c;
}

}  // namespace nb
