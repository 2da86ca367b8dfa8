#include "gpu_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

RunOptions validate_only_options(Distribution distribution) {
  RunOptions o;
  o.validate_only = true;
  o.progress = false;
  o.validation.trials = 1;
  o.validation.distributions = {distribution};
  return o;
}

std::vector<CaseOutcome> validate_variants(const OpSpec& op, const Problem& problem,
                                           const std::vector<Variant*>& variants, const ValidationPlan& plan,
                                           ProblemPhases* phases, TensorPlacement placement) {
  const CudaStream stream;
  std::vector<CaseOutcome> outcomes(variants.size());
  prepare_variants(problem, variants, outcomes, plan_cache_from_environment());  // the tests' shared folder
  ProblemBuffers buffers = ProblemBuffers::allocate(op, problem, variants, placement);
  ValidationPlan placed = plan;
  if (placed.why_host.empty()) placed.why_host = why_no_device_reference(op, problem);
  placed.device_reference = placed.why_host.empty();
  const ProblemPhases shared =
      ProblemValidator(op, problem, buffers, stream.get()).run(placed, variants, outcomes, [](const std::string&) {});
  if (phases) *phases = shared;
  return outcomes;
}

std::string describe(const CaseOutcome& o) {
  std::string s = std::string(case_status_name(o.status)) + " " + o.reason;
  for (const auto& d : o.validation.distributions)
    if (!d.passed) s += "\n  " + distribution_name(d.distribution) + ": " + d.failure;
  return s;
}

void expect_variants_pass(const OpSpec& op, const Problem& problem, const std::vector<std::string>& variants,
                          const std::vector<Distribution>& distributions) {
  std::vector<Variant*> found;
  for (const auto& name : variants) {
    found.push_back(op.find_variant(name));
    ASSERT_NE(found.back(), nullptr) << op.name() << " has no variant " << name;
  }
  ValidationPlan plan;
  plan.distributions = distributions;
  const auto outcomes = validate_variants(op, problem, found, plan);
  for (std::size_t k = 0; k < found.size(); ++k) {
    SCOPED_TRACE(problem.id() + " / " + found[k]->name());
    ASSERT_EQ(outcomes[k].status, CaseStatus::ran) << describe(outcomes[k]);
    for (const auto& d : outcomes[k].validation.distributions) {
      EXPECT_TRUE(d.passed) << distribution_name(d.distribution) << ": " << d.failure;
      EXPECT_EQ(d.unwritten, 0) << distribution_name(d.distribution);
    }
  }
}

double normwise(const std::vector<float>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = double(got[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1.0));
}

std::string rows_case_name(const RowsCase& c) {
  return dtype_name(c.dtype) + "_m" + std::to_string(c.m) + "_n" + std::to_string(c.n);
}

void PrintTo(const RowsCase& c, std::ostream* out) { *out << rows_case_name(c); }

}  // namespace nb::test
