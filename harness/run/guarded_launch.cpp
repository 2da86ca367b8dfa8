#include "harness/run/guarded_launch.hpp"

#include <cuda_runtime.h>

#include "harness/errors.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/run/plan_ahead.hpp"

namespace nb {

bool guarded(CaseOutcome& outcome, const std::string& case_name, const std::function<void()>& work) {
  try {
    work();
    return true;
  } catch (const Unsupported& e) {
    outcome.skip(e.what());
  } catch (const DeviceError& e) {
    outcome.fail(e.what());
    // A sticky fault (illegal address, trap) poisons the context: nothing after it is trustworthy.
    cudaError_t sticky = cudaDeviceSynchronize();
    if (sticky != cudaSuccess)
      throw DeviceError(case_name + " left the CUDA context unusable: " + e.what() + "; then " +
                        cudaGetErrorString(sticky));
    cudaGetLastError();  // a failed cudaMalloc leaves its error behind: the next variant's launch check must not see it
  }
  return false;
}

std::vector<PlanEvent> prepare_variants(const Problem& problem, const std::vector<Variant*>& variants,
                                        std::vector<CaseOutcome>& outcomes, const PlanCacheSetting& plan_cache,
                                        PlanAhead* ahead) {
  std::vector<PlanEvent> plans;
  for (std::size_t k = 0; k < variants.size(); ++k) {
    auto* planner = dynamic_cast<UsesPlanCache*>(variants[k]);
    if (planner) planner->use_plan_cache(plan_cache);
    if (planner && ahead) ahead->wait(problem.id(), variants[k]->name());
    const Support s = variants[k]->supports(problem);
    if (!s.ok)
      outcomes[k].skip(s.reason);
    else
      guarded(outcomes[k], nvtx_case_name(problem.op, variants[k]->name(), problem.id()),
              [&] { variants[k]->prepare(problem); });
    if (!planner) continue;
    for (PlanEvent& e : planner->take_plan_events()) {
      e.variant = variants[k]->name();
      plans.push_back(std::move(e));
    }
  }
  return plans;
}

}  // namespace nb
