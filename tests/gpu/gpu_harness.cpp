#include "gpu_harness.hpp"

#include "harness/cuda_check.hpp"
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
  cudaStream_t stream = nullptr;
  NB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<CaseOutcome> outcomes(variants.size());
  for (std::size_t k = 0; k < variants.size(); ++k) {
    Support s = variants[k]->supports(problem);
    if (!s.ok)
      outcomes[k].skip(s.reason);
    else
      guarded(outcomes[k], variants[k]->name(), [&] { variants[k]->prepare(problem); });
  }
  {
    ProblemBuffers buffers = ProblemBuffers::allocate(op, problem, variants);
    ProblemValidator(op, problem, buffers, stream).run(plan, variants, outcomes, [](const std::string&) {});
  }
  cudaStreamDestroy(stream);
  return outcomes;
}

std::string describe(const CaseOutcome& o) {
  std::string s = std::string(case_status_name(o.status)) + " " + o.reason;
  for (const auto& d : o.validation.distributions)
    if (!d.passed) s += "\n  " + distribution_name(d.distribution) + ": " + d.failure;
  return s;
}

}  // namespace nb::test
