// Where library plans are kept across processes (plan_cache_setting.hpp).
#include "harness/plan_cache/plan_cache_setting.hpp"

#include <cstdlib>
#include <filesystem>

namespace nb {
namespace {

constexpr const char* kSubfolder = "normbench/cudnn-plans";

std::string absolute(const std::string& folder) { return std::filesystem::absolute(folder).lexically_normal().string(); }

// The variable's value when it is set and not empty.
std::optional<std::string> value_of(const EnvironmentLookup& env, const char* name) {
  const char* v = env(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

}  // namespace

std::string PlanCacheSetting::describe() const {
  return (enabled() ? folder : std::string("off")) + " (" + origin + ")";
}

PlanCacheSetting resolve_plan_cache(const std::optional<std::string>& option_folder, bool off,
                                    const EnvironmentLookup& env) {
  if (off) return {"", "--no-plan-cache"};
  if (option_folder) return {absolute(*option_folder), "--plan-cache"};
  if (auto folder = value_of(env, "NORMBENCH_PLAN_CACHE")) return {absolute(*folder), "NORMBENCH_PLAN_CACHE"};
  // XDG Base Directory: a relative path in XDG_CACHE_HOME is invalid and ignored.
  if (auto xdg = value_of(env, "XDG_CACHE_HOME"); xdg && std::filesystem::path(*xdg).is_absolute())
    return {(std::filesystem::path(*xdg) / kSubfolder).lexically_normal().string(), "XDG_CACHE_HOME"};
  if (auto home = value_of(env, "HOME"))
    return {(std::filesystem::path(absolute(*home)) / ".cache" / kSubfolder).lexically_normal().string(), "HOME"};
  return {"", "no NORMBENCH_PLAN_CACHE, XDG_CACHE_HOME or HOME"};
}

PlanCacheSetting plan_cache_from_environment() {
  return resolve_plan_cache(std::nullopt, false, [](const char* name) { return std::getenv(name); });
}

}  // namespace nb
