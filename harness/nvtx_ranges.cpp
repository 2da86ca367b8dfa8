#include "harness/nvtx_ranges.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include <nvtx3/nvtx3.hpp>

namespace nb {
namespace {

struct NormbenchDomain {
  static constexpr char const* name{"normbench"};
};

const nvtx3::registered_string_in<NormbenchDomain>& registered(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<nvtx3::registered_string_in<NormbenchDomain>>> strings;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = strings[name];
  if (!slot) slot = std::make_unique<nvtx3::registered_string_in<NormbenchDomain>>(name);
  return *slot;
}

}  // namespace

std::string nvtx_case_name(const std::string& op, const std::string& variant, const std::string& problem_id) {
  // problem_id is "<op>/<name>/<dtype>": keep name and dtype, with spaces for the slashes.
  std::string rest = problem_id.compare(0, op.size() + 1, op + "/") == 0 ? problem_id.substr(op.size() + 1) : problem_id;
  std::replace(rest.begin(), rest.end(), '/', ' ');
  return op + " " + variant + " " + rest;
}

std::string ncu_nvtx_filter(const std::string& case_name) { return "normbench@" + case_name + "/"; }

NvtxRange::NvtxRange(const std::string& name) {
  nvtxDomainRangePushEx(nvtx3::domain::get<NormbenchDomain>(), nvtx3::event_attributes{registered(name)}.get());
}

NvtxRange::~NvtxRange() { nvtxDomainRangePop(nvtx3::domain::get<NormbenchDomain>()); }

}  // namespace nb
