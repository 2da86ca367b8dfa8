#pragma once
// Planted faults in the GEMM pipelines: a correct variant wrapped with one planted step, and the
// check that the harness's validation rejects it (the named tensor beyond its own bound in the
// trial) while the correct variant passes the same trials.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "gpu_harness.hpp"

namespace nb::test {

// CTAs of 256 threads for one thread per element of a planted step's kernel.
inline unsigned blocks(long long count) { return unsigned((count + 255) / 256); }

// A correct variant, then one planted step on the same stream (or a different call of it).
class Planted final : public Variant {
 public:
  using Step = std::function<void(Variant& correct, const Problem&, const DeviceTensors&, void* ws, cudaStream_t)>;
  Planted(std::string name, Variant& correct, std::size_t extra_workspace, Step step)
      : name_(std::move(name)), correct_(correct), extra_(extra_workspace), step_(std::move(step)) {}
  std::string name() const override { return name_; }
  std::string kind() const override { return "planted"; }
  std::string idea() const override { return "a correct pipeline with one planted fault"; }
  std::size_t workspace_bytes(const Problem& p) const override { return correct_.workspace_bytes(p) + extra_; }
  void prepare(const Problem& p) override { correct_.prepare(p); }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override { step_(correct_, p, t, ws, s); }

 private:
  std::string name_;
  Variant& correct_;
  std::size_t extra_;
  Step step_;
};

struct FaultCase {
  const OpSpec* op;
  Problem problem;
  std::unique_ptr<Variant> planted;
  Variant* correct;
  std::string failing_tensor;  // the tensor whose error must show the fault
};

inline const TensorErrors* errors_of(const DistributionVerdict& d, const std::string& tensor) {
  for (const auto& t : d.tensors)
    if (t.name == tensor) return &t;
  return nullptr;
}

inline void expect_rejected(FaultCase& f) {
  ValidationPlan plan;
  plan.distributions = {Distribution::uniform01, Distribution::normal};
  const auto outcomes = validate_variants(*f.op, f.problem, {f.planted.get(), f.correct}, plan);
  SCOPED_TRACE(f.problem.id() + " / " + f.planted->name());
  EXPECT_EQ(outcomes[1].validation.disposition, Disposition::passed) << describe(outcomes[1]);
  ASSERT_EQ(outcomes[0].status, CaseStatus::ran) << describe(outcomes[0]);
  const ValidationResult& v = outcomes[0].validation;
  EXPECT_EQ(v.disposition, Disposition::incorrect);
  // The named tensor must be beyond the bound it was held to in that trial.
  for (const auto& d : v.distributions) {
    EXPECT_FALSE(d.passed) << distribution_name(d.distribution);
    const TensorErrors* e = errors_of(d, f.failing_tensor);
    ASSERT_NE(e, nullptr) << f.failing_tensor;
    EXPECT_TRUE(e->unwritten > 0 || e->nonfinite_mismatch > 0 || e->normwise > e->bound.normwise ||
                e->elementwise > e->bound.elementwise)
        << f.failing_tensor << ": normwise " << e->normwise << " elementwise " << e->elementwise << " within "
        << e->bound.normwise << " / " << e->bound.elementwise;
  }
}

inline Variant& variant(const OpSpec& op, const std::string& name) {
  Variant* v = op.find_variant(name);
  if (!v) throw std::logic_error("no variant " + name);
  return *v;
}

}  // namespace nb::test
