// The device reference's audit and the trial policy in a real validation: the audit's part before
// the variants and the wait for its host part are recorded apart, every trial is audited and its
// draws checked; a variant whose launch takes longer than slow_launch_ms gets one trial per
// distribution while the others keep every trial, and the trials no variant wants are not run.
#include <gtest/gtest.h>

#include "gpu_harness.hpp"
#include "harness/cuda_check.hpp"
#include "harness/run/phase_times.hpp"

namespace nb::test {
namespace {

__device__ unsigned long long nanoseconds() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(unsigned long long ns) {
  const unsigned long long start = nanoseconds();
  while (nanoseconds() - start < ns) {
  }
}

// A real variant behind ~80 ms of spinning on the same stream: slow as a naive kernel, as right
// as the variant it wraps.
std::unique_ptr<Variant> slow_twin(Variant& real) {
  return make_kernel_variant({"slow_" + real.name(), "naive", "the variant behind 80 ms of spinning",
                              [&real](const Problem& p, const DeviceTensors& t, void* w, cudaStream_t s) {
                                spin_kernel<<<1, 1, 0, s>>>(80ull * 1000 * 1000);
                                NB_CHECK_LAUNCH();
                                real.launch(p, t, w, s);
                              },
                              nullptr, nullptr, {}});
}

const std::vector<Distribution> kTwo = {Distribution::uniform01, Distribution::normal};

TEST(DeviceAudit, RecordsItsCopiesAndTheWaitForItsHostPartApart) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  const Problem problem = op.make_problem({{"m", 2048}, {"n", 4096}});  // over 2^22 elements: sampled rows
  std::vector<Variant*> variants = {op.find_variant("naive"), op.find_variant("register_row")};
  ValidationPlan plan;
  plan.distributions = kTwo;
  ProblemPhases phases;
  for (const CaseOutcome& o : validate_variants(op, problem, variants, plan, &phases)) {
    EXPECT_EQ(o.validation.disposition, Disposition::passed) << describe(o);
    EXPECT_EQ(o.validation.reference.computed_on, "device");
    EXPECT_EQ(o.validation.reference.audited_trials, 6);
    EXPECT_GT(o.validation.reference.drawn_elements_checked, 0);
    EXPECT_FALSE(o.validation.reference.full());
  }
  EXPECT_GT(phases.audit_gather_s, 0) << "the audit's part of each trial before the variants";
  EXPECT_GE(phases.audit_wait_s, 0);
  EXPECT_DOUBLE_EQ(phases.audit_s(), phases.audit_gather_s + phases.audit_wait_s);
  std::printf("audit: %.4f s before the variants, %.4f s waited for, over 6 trials\n", phases.audit_gather_s,
              phases.audit_wait_s);
}

TEST(DeviceAudit, ASlowVariantGetsOneTrialPerDistributionTheOthersThree) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  const Problem problem = op.make_problem({{"m", 300}, {"n", 1000}});
  Variant& real = *op.find_variant("register_row");
  const std::unique_ptr<Variant> slow = slow_twin(real);
  ValidationPlan plan;
  plan.distributions = kTwo;
  const std::vector<CaseOutcome> outcomes = validate_variants(op, problem, {&real, slow.get()}, plan);
  ASSERT_EQ(outcomes.size(), 2u);
  for (const CaseOutcome& o : outcomes) {
    EXPECT_EQ(o.validation.disposition, Disposition::passed) << describe(o);
    ASSERT_EQ(o.validation.distributions.size(), kTwo.size()) << "every distribution, slow or not";
  }
  for (const DistributionVerdict& d : outcomes[0].validation.distributions) EXPECT_EQ(d.seeds.size(), 3u);
  for (const DistributionVerdict& d : outcomes[1].validation.distributions) {
    EXPECT_EQ(d.seeds.size(), 1u) << distribution_name(d.distribution);
    EXPECT_EQ(d.seeds.front(), outcomes[0].validation.distributions.front().seeds.front() +
                                   100 * (d.distribution == Distribution::normal ? 1 : 0))
        << "the distribution's first trial, shared with the fast variant";
  }
  EXPECT_GT(outcomes[1].validation.launch_ms_estimate, plan.slow_launch_ms);
  EXPECT_EQ(outcomes[0].validation.reference.audited_trials, 6) << "the fast variant's trials are all prepared";
}

TEST(DeviceAudit, TrialsNoVariantWantsAreNotPrepared) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  const Problem problem = op.make_problem({{"m", 300}, {"n", 1000}});
  std::vector<Variant*> variants = {op.find_variant("naive"), op.find_variant("register_row")};
  ValidationPlan plan;
  plan.distributions = kTwo;
  plan.slow_launch_ms = 0;  // every launch is slow
  for (const CaseOutcome& o : validate_variants(op, problem, variants, plan)) {
    EXPECT_EQ(o.validation.disposition, Disposition::passed) << describe(o);
    for (const DistributionVerdict& d : o.validation.distributions) EXPECT_EQ(d.seeds.size(), 1u);
    EXPECT_EQ(o.validation.reference.audited_trials, 2) << "one trial per distribution, no more";
  }
}

}  // namespace
}  // namespace nb::test
