#pragma once
// Runs a variant's prepare/launch and sorts what goes wrong into the case outcome: a library
// refusal (Unsupported) skips the case, a launch error fails it, and a fault that leaves the
// CUDA context unusable aborts the whole run with the case named.
#include <functional>
#include <string>
#include <vector>

#include "harness/plan_cache/plan_events.hpp"
#include "harness/run/case_outcome.hpp"
#include "harness/variant.hpp"

namespace nb {

class PlanAhead;

// Returns true when `work` completed; otherwise records why in `outcome`.
bool guarded(CaseOutcome& outcome, const std::string& case_name, const std::function<void()>& work);

// Skips each variant that supports() refuses, with its reason, and prepares the others for the
// problem (guarded). outcomes[i] belongs to variants[i]. A variant that UsesPlanCache is given
// `plan_cache` first, and with `ahead` its case's plan task is waited for (or taken back) before
// its prepare(); the library plans its prepare() made are returned, named by the variant.
std::vector<PlanEvent> prepare_variants(const Problem& problem, const std::vector<Variant*>& variants,
                                        std::vector<CaseOutcome>& outcomes, const PlanCacheSetting& plan_cache,
                                        PlanAhead* ahead = nullptr);

}  // namespace nb
