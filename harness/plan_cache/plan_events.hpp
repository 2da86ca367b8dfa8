#pragma once
// What a variant's prepare() did about library plans (cuDNN execution plans), for the phase times:
// each plan it built (a plan cache miss, with the seconds the heuristics and finalization took),
// loaded from the plan cache (a hit), or tried and was refused. UsesPlanCache is what such a
// variant offers beside the Variant interface: the runner finds it with dynamic_cast, hands it
// the run's plan cache setting, and takes the plans after each prepare(); and what lets the run
// build its plans ahead on host threads (harness/run/plan_ahead.hpp).
#include <memory>
#include <string>
#include <vector>

#include "harness/plan_cache/plan_cache_setting.hpp"
#include "harness/problem.hpp"

namespace nb {

enum class PlanSource { built, loaded, refused };
const char* plan_source_name(PlanSource s);  // "built", "loaded", "refused"

struct PlanEvent {
  std::string variant;  // set by the runner
  std::string plan;     // what it plans: "rms_forward M=1 N=524288 fp16, inference phase"
  PlanSource source = PlanSource::built;
  double seconds = 0;             // building (heuristics and finalization), loading, or being refused
  bool runtime_compiled = false;  // its engine compiles its kernel when the plan is built
  std::string status;             // the engine, its notes, the configs tried, and what the cache did

  bool hit() const { return source == PlanSource::loaded; }
};

class UsesPlanCache {
 public:
  virtual ~UsesPlanCache() = default;
  // Before prepare(): where plans are kept and found (the environment's setting until then).
  virtual void use_plan_cache(const PlanCacheSetting& setting) = 0;
  // The plans prepare() made since the last call, in order; they are given once.
  virtual std::vector<PlanEvent> take_plan_events() = 0;

  // Makes the variant's own library handle on the calling thread, if it has none: cuDNN asks for
  // one handle made synchronously before threads make theirs (PlanAhead calls it first).
  virtual void open_library() = 0;
  // A fresh instance of the same variant, with no plans and a library handle of its own, for a
  // planning thread: there its plan_only() runs while the run validates other problems.
  virtual std::unique_ptr<UsesPlanCache> planning_twin() const = 0;
  // Finds or builds the plans prepare(p) would and keeps them in the plan cache, and nothing else
  // (no device memory of the variant's own, no stream): prepare(p) then loads them. Throws what
  // prepare(p) would.
  virtual void plan_only(const Problem& p) = 0;
};

}  // namespace nb
