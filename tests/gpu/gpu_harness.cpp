#include "gpu_harness.hpp"

#include "harness/cuda_stream.hpp"
#include "harness/run/guarded_launch.hpp"
#include "harness/run/problem_buffers.hpp"
#include "harness/run/problem_validator.hpp"
#include "kernels/ops.hpp"

namespace nb::test {

const Registry& registry() {
  static const Registry r(make_ops());
  return r;
}

ValidationPlan every_distribution(int trials) {
  ValidationPlan plan;
  plan.distributions = all_distributions();
  plan.trials = trials;
  return plan;
}

std::vector<CaseOutcome> validate_variants(const OpSpec& op, const Problem& problem,
                                           const std::vector<Variant*>& variants, const ValidationPlan& plan) {
  const CudaStream stream;
  std::vector<CaseOutcome> outcomes(variants.size());
  prepare_variants(problem, variants, outcomes);
  ProblemBuffers buffers = ProblemBuffers::allocate(op, problem, variants);
  ProblemValidator(op, problem, buffers, stream.get()).run(plan, variants, outcomes, [](const std::string&) {});
  return outcomes;
}

std::string describe(const CaseOutcome& o) {
  std::string s = std::string(case_status_name(o.status)) + " " + o.reason;
  for (const auto& d : o.validation.distributions)
    if (!d.passed) s += "\n  " + distribution_name(d.distribution) + ": " + d.failure;
  return s;
}

}  // namespace nb::test
