// A wrong device reference must fail its problem's cases as reference_disagreement, never as the
// variant's fault, and never pass silently: an op whose reference program is off by one part in a
// million (far inside what the variants are held to, so their verdicts alone would not show it)
// goes through a real validation, and Eigen's audit stops it.
#include <gtest/gtest.h>

#include "gpu_harness.hpp"
#include "harness/run/problem_validator.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"

namespace nb::test {
namespace {

template <class Ex>
void scale(Ex& ex, double* values, std::int64_t n, double factor) {
  ex.each(n, [=] NB_HD(std::int64_t i) { values[i] *= factor; });
}

// rmsnorm_rows in every respect but the reference program's last step.
class WrongReference final : public OpSpec {
 public:
  explicit WrongReference(const OpSpec& real) : real_(real) {}
  std::string name() const override { return real_.name(); }
  std::string formula() const override { return real_.formula(); }
  std::vector<ParamDecl> param_decls() const override { return real_.param_decls(); }
  std::vector<DType> dtypes() const override { return real_.dtypes(); }
  std::string check(const Params& p) const override { return real_.check(p); }
  std::vector<NamedProblem> named_problems() const override { return real_.named_problems(); }
  std::vector<TensorDecl> tensors(const Problem& p) const override { return real_.tensors(p); }
  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    real_.reference(p, in, out);
  }
  WorkModel work(const Problem& p) const override { return real_.work(p); }
  Tolerance tolerance(const Problem& p) const override { return real_.tolerance(p); }
  double reduction_length(const Problem& p) const override { return real_.reduction_length(p); }
  std::vector<InputDraw> input_draws(const Problem& p, Distribution d) const override { return real_.input_draws(p, d); }
  bool has_reference_program() const override { return true; }
  std::vector<SliceFamily> slice_families(const Problem& p) const override { return real_.slice_families(p); }

  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const ReferenceConditions c = real_.reference_program(p, t, out, ex);
    const int y = 2;  // rmsnorm_rows' output
    ex.visit([&](auto& e) { scale(e, out[y], t.size(y), 1.0 + 1e-6); });
    return c;
  }

 private:
  const OpSpec& real_;
};

TEST(WrongDeviceReference, FailsTheCasesAsReferenceDisagreement) {
  const OpSpec& real = registry().op("rmsnorm_rows");
  const WrongReference wrong(real);
  const Problem problem = real.make_problem({{"m", 300}, {"n", 1000}});
  std::vector<Variant*> variants = {real.find_variant("naive"), real.find_variant("register_row")};
  ValidationPlan plan;
  plan.distributions = {Distribution::uniform01};
  const auto outcomes = validate_variants(wrong, problem, variants, plan);
  for (const CaseOutcome& o : outcomes) {
    EXPECT_EQ(o.status, CaseStatus::error) << describe(o);
    EXPECT_EQ(o.reason.rfind(kReferenceDisagreement, 0), 0u) << o.reason;
    EXPECT_EQ(o.validation.reference.computed_on, "device");
  }
  // The same variants against the true reference pass: the fault is the reference's alone.
  for (const CaseOutcome& o : validate_variants(real, problem, variants, plan))
    EXPECT_EQ(o.validation.disposition, Disposition::passed) << describe(o);
}

}  // namespace
}  // namespace nb::test
