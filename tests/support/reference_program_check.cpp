#include "reference_program_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "harness/stored_value.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/executor.hpp"
#include "harness/validation/gathered_order.hpp"
#include "harness/validation/harness_programs.hpp"
#include "harness/validation/trial_tolerance.hpp"

namespace nb::test {
namespace {

class HostProgramMemory final : public ProgramMemory {
 public:
  void* allocate(std::size_t bytes) override {
    blocks_.emplace_back(bytes ? bytes : 1);
    return blocks_.back().data();
  }
  void to_host(void* host, const void* data, std::size_t bytes) override { std::memcpy(host, data, bytes); }
  void from_host(void* data, const void* host, std::size_t bytes) override { std::memcpy(data, host, bytes); }

 private:
  std::vector<std::vector<unsigned char>> blocks_;
};

// Distance in units of the last place of float (0 for two NaNs).
std::int64_t ulps_apart(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (a == b) return 0;
  std::int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if ((ia < 0) != (ib < 0)) return std::int64_t(1) << 32;
  return std::llabs(std::int64_t(ia) - std::int64_t(ib));
}

std::vector<float> decoded(ProgramMemory& memory, const TensorDecl& decl, const void* data) {
  std::vector<unsigned char> raw(storage_bytes(decl));
  memory.to_host(raw.data(), data, raw.size());
  std::vector<float> v(static_cast<std::size_t>(decl.elements));
  for (std::int64_t i = 0; i < decl.elements; ++i) v[std::size_t(i)] = stored::load(raw.data(), i, decl.dtype);
  return v;
}

std::vector<double> doubles(ProgramMemory& memory, const double* data, std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  memory.to_host(v.data(), data, v.size() * sizeof(double));
  return v;
}

bool is_drawn(const std::vector<InputDraw>& draws, std::size_t tensor) {
  for (const InputDraw& d : draws)
    if (std::size_t(d.tensor) == tensor) return true;
  return false;
}

double gap(double a, double b) { return std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), 1e-300}); }

// How far two conditions may lie apart: 1e-9, or more for a large one. A condition is a norm of
// terms over the norm of a result that cancels to 1/condition of them, and that result carries a
// relative rounding error of ~1e-16 x condition from each side's order of summation.
double condition_allowance(double condition) { return std::max(1e-9, 1e-15 * std::fabs(condition)); }

// The audit draws its slices' declared inputs on the host instead of copying them: for the slices
// it takes, they hold bit for bit what the executor's tensors hold there (what gather returns).
void expect_slice_draws_match_the_executors(const DeviceTrial& t, Executor& ex, const AuditBudget& budget) {
  AuditStaging staging(ex.on_device());
  for (const SliceFamily& f : t.op.slice_families(t.problem)) {
    const std::vector<std::int64_t> slices = audit_slices(f, t, budget);
    if (slices.empty()) continue;
    for (const InputDraw& d : t.draws) {
      const TensorDecl& decl = t.decls.at(std::size_t(d.tensor));
      const GatheredOrder order(f.runs(d.tensor, slices));
      std::vector<float> drawn(std::size_t(order.size()));
      draw_gathered(d, t.seed, decl, order, drawn.data());
      float* gathered = staging.host<float>(order.size());
      ex.visit([&](auto& e) { gather_into(e, t.tensors.in(d.tensor), f.runs(d.tensor, slices), gathered, staging); });
      arrival(ex)();
      std::int64_t differ = 0, first = -1;
      for (std::int64_t k = 0; k < order.size(); ++k)
        if (std::memcmp(&drawn[std::size_t(k)], &gathered[k], sizeof(float)) != 0 && differ++ == 0) first = k;
      EXPECT_EQ(differ, 0) << decl.name << " over " << slices.size() << " " << f.unit << "s: the host draws "
                           << drawn[std::size_t(std::max<std::int64_t>(first, 0))] << " at gathered element " << first
                           << ", the executor holds " << gathered[std::max<std::int64_t>(first, 0)];
      staging.recycle();
    }
  }
}

// A device draw that differs from the host's at one element the audit samples (of declared draw
// `d`, in the op's first slice family) fails the audit as the device's draw.
void expect_a_wrong_draw_caught(const DeviceTrial& t, Executor& ex, ProgramMemory& memory, const InputDraw& d,
                                const AuditBudget& budget) {
  const TensorDecl& decl = t.decls.at(std::size_t(d.tensor));
  const SliceFamily f = t.op.slice_families(t.problem).front();
  const GatheredOrder order(f.runs(d.tensor, audit_slices(f, t, budget)));
  if (order.size() == 0) return;
  const std::vector<std::int64_t> sample = audit_draw_sample(order.size());
  const std::int64_t index = order.source(sample[sample.size() / 2]);
  std::vector<unsigned char> raw(storage_bytes(decl)), planted;
  memory.to_host(raw.data(), t.tensors.data.at(std::size_t(d.tensor)), raw.size());
  planted = raw;
  const float was = stored::load(raw.data(), index, decl.dtype);
  stored::MutableTensor{planted.data(), decl.dtype}.set(index, std::isfinite(was) && was != 0 ? -was : 1.0f);
  memory.from_host(t.tensors.data.at(std::size_t(d.tensor)), planted.data(), planted.size());
  ReferenceSummary summary;
  try {
    audit_reference(t, ex, budget, summary);
    ADD_FAILURE() << decl.name << "[" << index << "]: a device draw unlike the host's went unseen";
  } catch (const ReferenceDisagreement& e) {
    EXPECT_NE(std::string(e.what()).find("the device drew " + decl.name + "[" + std::to_string(index) + "]"),
              std::string::npos)
        << e.what();
  }
  memory.from_host(t.tensors.data.at(std::size_t(d.tensor)), raw.data(), raw.size());
}

}  // namespace

std::unique_ptr<ProgramMemory> host_memory() { return std::make_unique<HostProgramMemory>(); }

ProgramAgreement check_reference_program(const OpSpec& op, const Problem& p, Distribution d, std::uint64_t seed,
                                         Executor& ex, ProgramMemory& memory, bool audit) {
  SCOPED_TRACE(p.id() + " " + distribution_name(d) + " seed " + std::to_string(seed));
  ProgramAgreement agreement;
  const std::vector<TensorDecl> decls = op.tensors(p);
  const std::vector<InputDraw> draws = op.input_draws(p, d);
  ProgramTensors tensors;
  ProgramReference reference;
  for (const TensorDecl& decl : decls) {
    tensors.data.push_back(memory.allocate(storage_bytes(decl)));
    tensors.storage.push_back(decl.dtype);
    tensors.elements.push_back(decl.elements);
    reference.data.push_back(decl.role == TensorRole::input
                                 ? nullptr
                                 : static_cast<double*>(memory.allocate(std::size_t(decl.elements) * sizeof(double))));
  }

  // The inputs: drawn bit for bit as the host draws them, derived ones to float rounding.
  ex.visit([&](auto& e) { draw_inputs(e, draws, tensors, seed); });
  op.derive_inputs(p, seed, tensors, ex);
  HostTensors host = allocate_host_inputs(decls);
  draw_stored_inputs(op, p, decls, d, seed, host);
  HostTensors inputs = allocate_host_inputs(decls);
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::output) continue;
    inputs.data[i] = decoded(memory, decls[i], tensors.data[i]);
    const std::int64_t allowed = is_drawn(draws, i) ? 0 : 2;
    std::int64_t worst = 0, at = 0;
    for (std::size_t k = 0; k < inputs.data[i].size(); ++k) {
      const std::int64_t apart = ulps_apart(inputs.data[i][k], host.data[i][k]);
      if (apart > worst) worst = apart, at = std::int64_t(k);
    }
    EXPECT_LE(worst, allowed) << decls[i].name << "[" << at << "]: program " << inputs.data[i][std::size_t(at)]
                              << ", host " << host.data[i][std::size_t(at)];
  }

  // The reference and its conditions, against Eigen's from the same inputs.
  const ReferenceConditions conditions = op.reference_program(p, tensors, reference, ex);
  ReferenceTensors eigen = allocate_references(decls);
  op.reference(p, inputs, eigen);
  const ReferenceConditions expected = host_conditions(op, p, decls, inputs, eigen);
  agreement.worst_condition_gap = gap(conditions.instance, expected.instance);
  EXPECT_LE(gap(conditions.instance, expected.instance), condition_allowance(expected.instance))
      << "instance condition " << conditions.instance << ", host " << expected.instance;
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::input) continue;
    const double own = gap(conditions.of(i), expected.of(i));
    agreement.worst_condition_gap = std::max(agreement.worst_condition_gap, own);
    EXPECT_LE(own, condition_allowance(expected.of(i)))
        << decls[i].name << " condition " << conditions.of(i) << ", host " << expected.of(i);
    const double amplification_gap = gap(conditions.amplification_of(i), expected.amplification_of(i));
    agreement.worst_condition_gap = std::max(agreement.worst_condition_gap, amplification_gap);
    EXPECT_LE(amplification_gap, condition_allowance(expected.amplification_of(i)))
        << decls[i].name << " operand amplification " << conditions.amplification_of(i) << ", host "
        << expected.amplification_of(i);
    const std::vector<double> program = doubles(memory, reference[int(i)], decls[i].elements);
    const std::vector<double>& truth = eigen.data[i];
    FiniteSquares squares;
    for (double r : truth) squares.add(r);
    ErrorTally tally;
    for (std::size_t k = 0; k < truth.size(); ++k) tally.add(std::int64_t(k), false, program[k], truth[k], 1e-3 * squares.rms(), 0);
    const TensorErrors e = tensor_errors(decls[i].name, decls[i].elements, tally, {});
    agreement.worst_normwise = std::max(agreement.worst_normwise, e.normwise);
    agreement.worst_elementwise = std::max(agreement.worst_elementwise, e.elementwise);
    // ~1e-12 normwise where the instance and the tensor are well conditioned (two sums of 10^5 terms in
    // another order differ by ~1e-13, 1e-12 over rows of 2^18 `wide` values); a cancelling sum agrees
    // to its condition's share.
    const double scale = std::max(1.0, expected.instance) * std::max(1.0, expected.of(i));
    EXPECT_EQ(e.nonfinite_mismatch, 0) << decls[i].name << ": NaN/Inf placement differs from Eigen's, first at "
                                       << e.first_mismatch;
    EXPECT_LE(e.normwise, 1e-11 * scale) << decls[i].name;
    EXPECT_LE(e.elementwise, 1e-8 * scale) << decls[i].name << " at " << e.worst_index << ": program " << e.worst_value
                                            << ", Eigen " << e.worst_reference;
  }

  // Eigen's audit passes on sampled slices (and on every slice), and catches a planted error.
  if (!audit) return agreement;
  const TrialTolerances tolerances = trial_tolerances(op, p, decls, conditions);
  const DeviceTrial trial{op, p, decls, tensors, reference, draws, seed, tolerances};
  // The budgets: the default (the whole of a quick problem); three slices however small the
  // problem; and three slices with every non-uniform draw copied from the executor rather than
  // drawn on the host.
  const AuditBudget few{0, 3, std::int64_t(1) << 20}, copying{0, 3, std::int64_t(1) << 20, 0};
  for (const AuditBudget budget : {AuditBudget{}, few, copying}) {
    ReferenceSummary summary;
    EXPECT_NO_THROW(audit_reference(trial, ex, budget, summary));
    EXPECT_LT(summary.worst_share_of_bound, 1.0);
    EXPECT_EQ(summary.audited_trials, 1);
    EXPECT_GT(summary.drawn_elements_checked, 0);
  }
  expect_slice_draws_match_the_executors(trial, ex, AuditBudget{});
  // A wrong device draw is caught, under `special` (its plants among the draws): in each declared
  // draw, drawn on the host, and in a non-uniform one copied from the executor.
  if (d == Distribution::special) {
    for (const InputDraw& draw : draws) expect_a_wrong_draw_caught(trial, ex, memory, draw, few);
    for (const InputDraw& draw : draws)
      if (!draw.uniform()) {
        expect_a_wrong_draw_caught(trial, ex, memory, draw, copying);
        break;
      }
  }
  const std::vector<SliceFamily> families = op.slice_families(p);
  EXPECT_FALSE(families.empty());
  for (const SliceFamily& f : families) {
    for (int c : f.checked) {
      const Tolerance& tol = tolerances.per_tensor.at(std::size_t(c));
      if (kAuditShareOfTolerance * tol.normwise > 0.1) continue;  // a bound that loose cannot see a plant
      const std::int64_t n = decls.at(std::size_t(c)).elements;
      std::vector<double> saved = doubles(memory, reference[c], n), planted = saved;
      if (std::none_of(saved.begin(), saved.end(), [](double v) { return std::isfinite(v); })) continue;  // nothing to plant in
      for (double& v : planted) v = 2 * v + 1;
      memory.from_host(reference[c], planted.data(), planted.size() * sizeof(double));
      ReferenceSummary summary;
      EXPECT_THROW(audit_reference(trial, ex, AuditBudget{0, 8, std::int64_t(1) << 24}, summary), ReferenceDisagreement)
          << decls.at(std::size_t(c)).name << " of " << f.unit << "s: a planted error went unseen";
      memory.from_host(reference[c], saved.data(), saved.size() * sizeof(double));
    }
  }
  return agreement;
}

void check_every_distribution(const OpSpec& op, const Problem& p, Executor& ex,
                              const std::function<std::unique_ptr<ProgramMemory>()>& memory, const char* where,
                              AuditChecks audit) {
  ProgramAgreement worst;
  for (std::size_t d = 0; d < all_distributions().size(); ++d) {
    const Distribution dist = all_distributions()[d];
    const bool audited = audit == AuditChecks::every_distribution || dist == Distribution::normal ||
                         dist == Distribution::special;
    const std::unique_ptr<ProgramMemory> own = memory();
    const ProgramAgreement a = check_reference_program(op, p, dist, 5000 + d, ex, *own, audited);
    worst.worst_normwise = std::max(worst.worst_normwise, a.worst_normwise);
    worst.worst_elementwise = std::max(worst.worst_elementwise, a.worst_elementwise);
    worst.worst_condition_gap = std::max(worst.worst_condition_gap, a.worst_condition_gap);
  }
  std::printf("%s %s: against Eigen, worst normwise %.2e, elementwise %.2e, condition gap %.2e\n", p.id().c_str(),
              where, worst.worst_normwise, worst.worst_elementwise, worst.worst_condition_gap);
}

}  // namespace nb::test
