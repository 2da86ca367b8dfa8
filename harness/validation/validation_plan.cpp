#include "harness/validation/validation_plan.hpp"

#include "harness/errors.hpp"

namespace nb {

ValidationPlan plan_validation(const std::vector<TensorDecl>& decls, const ValidationOptions& options) {
  if (options.trials < 1) throw UsageError("--trials must be at least 1");
  ValidationPlan plan;
  plan.trials = options.trials;
  plan.base_seed = options.base_seed;
  if (!options.distributions.empty())
    plan.distributions = options.distributions;
  else if (total_elements(decls) <= options.full_validation_elements)
    plan.distributions = all_distributions();
  else
    plan.distributions = {Distribution::uniform01};
  return plan;
}

}  // namespace nb
