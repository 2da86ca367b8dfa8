#pragma once
// Where library plans (cuDNN execution plans) are kept across processes: a folder, or none.
// `normbench run` and `eval` take --plan-cache DIR and --no-plan-cache; without them the folder is
// $NORMBENCH_PLAN_CACHE, else the XDG cache convention's: $XDG_CACHE_HOME/normbench/cudnn-plans
// (an absolute XDG_CACHE_HOME only, as the specification says), else
// $HOME/.cache/normbench/cudnn-plans. With none of them set, nothing is kept.
#include <functional>
#include <optional>
#include <string>

namespace nb {

struct PlanCacheSetting {
  std::string folder;  // absolute; "" when off
  std::string origin;  // what chose it: --plan-cache, --no-plan-cache, NORMBENCH_PLAN_CACHE, XDG_CACHE_HOME, HOME

  bool enabled() const { return !folder.empty(); }
  // "/home/u/.cache/normbench/cudnn-plans (HOME)" or "off (--no-plan-cache)".
  std::string describe() const;
  bool operator==(const PlanCacheSetting& o) const { return folder == o.folder && origin == o.origin; }
};

// A variable of the environment, or null when it is not set (std::getenv in the program).
using EnvironmentLookup = std::function<const char*(const char* name)>;

// option_folder: --plan-cache's value when given; off: --no-plan-cache (the CLI refuses both).
// A relative folder is made absolute against the working directory.
PlanCacheSetting resolve_plan_cache(const std::optional<std::string>& option_folder, bool off,
                                    const EnvironmentLookup& env);
// The setting of a process given no option: from its environment.
PlanCacheSetting plan_cache_from_environment();

}  // namespace nb
