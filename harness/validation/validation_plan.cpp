#include "harness/validation/validation_plan.hpp"

#include <algorithm>

#include "harness/errors.hpp"

namespace nb {

void check_validation_options(const ValidationOptions& options) {
  if (options.trials < 1) throw UsageError("--trials must be at least 1");
  if (options.huge_problem_trials < 1) throw UsageError("--huge-trials must be at least 1");
  if (!(options.slow_launch_ms >= 0)) throw UsageError("--slow-launch-ms must be at least 0");
}

ValidationPlan plan_validation(const std::vector<TensorDecl>& decls, const ValidationOptions& options,
                               const std::string& why_host) {
  check_validation_options(options);
  ValidationPlan plan;
  plan.device_reference = why_host.empty();
  plan.why_host = why_host;
  plan.audit = options.audit;
  plan.slow_launch_ms = options.slow_launch_ms;
  const std::int64_t elements = total_elements(decls);
  plan.trials = elements > options.huge_problem_elements ? std::min(options.trials, options.huge_problem_trials)
                                                         : options.trials;
  plan.base_seed = options.base_seed;
  plan.fresh_buffers_per_trial = options.fresh_buffers_per_trial;
  plan.strict = options.strict;
  if (!options.distributions.empty())
    plan.distributions = options.distributions;
  else if (plan.device_reference || elements <= options.full_validation_elements)
    plan.distributions = all_distributions();
  else
    plan.distributions = {Distribution::uniform01};
  return plan;
}

}  // namespace nb
