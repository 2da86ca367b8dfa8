#include "harness/validation/reference_audit.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "harness/validation/compare.hpp"
#include "harness/validation/harness_programs.hpp"

namespace nb {
namespace {

// The input elements of one tensor whose draw the audit checks per trial, spread over the gathered ones.
constexpr std::int64_t kDrawChecksPerTensor = std::int64_t(1) << 16;

std::int64_t slice_problem_elements(const SliceFamily& f, std::size_t tensors, const std::vector<std::int64_t>& slices) {
  std::int64_t n = 0;
  for (std::size_t t = 0; t < tensors; ++t) n += run_elements(f.runs(static_cast<int>(t), slices));
  return n;
}

const InputDraw* draw_of(const std::vector<InputDraw>& draws, int tensor) {
  for (const InputDraw& d : draws)
    if (d.tensor == tensor) return &d;
  return nullptr;
}

// Where element k of the gathered order sits in the full tensor.
std::int64_t source_index(const std::vector<ElementRun>& runs, const std::vector<std::int64_t>& offsets, std::int64_t k) {
  const auto it = std::upper_bound(offsets.begin(), offsets.end(), k) - 1;
  const ElementRun& r = runs[static_cast<std::size_t>(it - offsets.begin())];
  return r.begin + (k - *it);
}

std::string describe_slices(const SliceFamily& f, const std::vector<std::int64_t>& slices) {
  std::ostringstream s;
  s << slices.size() << " of " << f.count << " " << f.unit << "s";
  return s.str();
}

// The device drew what the host draws: the gathered values of a declared draw, bit for bit, at
// up to kDrawChecksPerTensor positions. Returns how many it checked.
std::int64_t check_draw(const InputDraw& draw, const GatheredAudit& t, const std::vector<ElementRun>& runs,
                        const std::vector<float>& gathered) {
  const TensorDecl& decl = t.decls.at(static_cast<std::size_t>(draw.tensor));
  const auto planted = planted_specials(draw, t.seed, decl.elements);
  std::vector<std::int64_t> offsets{0};
  for (const ElementRun& r : runs) offsets.push_back(offsets.back() + r.count);
  const std::int64_t total = offsets.back(), checks = std::min(total, kDrawChecksPerTensor);
  for (std::int64_t j = 0; j < checks; ++j) {
    const std::int64_t k = checks == total ? j : j * (total / checks);
    const std::int64_t index = source_index(runs, offsets, k);
    const float host = stored_draw(draw, t.seed, decl.dtype, index, planted), device = gathered[std::size_t(k)];
    if (std::memcmp(&host, &device, sizeof host) != 0) {
      std::ostringstream msg;
      msg << "the device drew " << decl.name << "[" << index << "] = " << device << ", the host draws " << host
          << " (seed " << t.seed << ")";
      throw ReferenceDisagreement(msg.str());
    }
  }
  return checks;
}

// The device's values of one output against Eigen's over the audited slices.
void compare_slices(const GatheredAudit& t, int tensor, const std::vector<double>& device, const std::vector<double>& eigen,
                    const SliceFamily& f, const std::vector<std::int64_t>& slices, ReferenceSummary& summary) {
  const TensorDecl& decl = t.decls.at(static_cast<std::size_t>(tensor));
  const Tolerance& tol = t.tolerances.per_tensor.at(static_cast<std::size_t>(tensor));
  if (device.size() != eigen.size())
    throw std::logic_error(t.op->name() + ": slice family '" + f.unit + "' gives " + decl.name + " " +
                           std::to_string(eigen.size()) + " elements in its problem and " + std::to_string(device.size()) +
                           " runs");
  FiniteSquares squares;
  for (double r : eigen) squares.add(r);
  const double floor = tol.floor_fraction * squares.rms();
  ErrorTally tally;
  for (std::size_t i = 0; i < eigen.size(); ++i) tally.add(std::int64_t(i), false, device[i], eigen[i], floor, 0.0);
  const TensorErrors e = tensor_errors(decl.name, std::int64_t(eigen.size()), tally, tol);
  const double share = std::max(e.normwise / (kAuditShareOfTolerance * tol.normwise),
                                e.elementwise / (kAuditShareOfTolerance * tol.elementwise));
  summary.worst_normwise = std::max(summary.worst_normwise, e.normwise);
  summary.worst_elementwise = std::max(summary.worst_elementwise, e.elementwise);
  summary.worst_share_of_bound = std::max(summary.worst_share_of_bound, share);
  if (e.nonfinite_mismatch == 0 && share <= 1) return;
  std::ostringstream msg;
  msg << decl.name << " over " << describe_slices(f, slices) << ": ";
  if (e.nonfinite_mismatch > 0)
    msg << "NaN/Inf placement differs at " << e.nonfinite_mismatch << " element(s), the first at " << e.first_mismatch
        << " of the audited ones (device " << device[std::size_t(e.first_mismatch)] << ", Eigen "
        << eigen[std::size_t(e.first_mismatch)] << ")";
  else
    msg << "normwise " << e.normwise << ", elementwise " << e.elementwise << " (device " << e.worst_value << ", Eigen "
        << e.worst_reference << " at audited element " << e.worst_index << "), above " << kAuditShareOfTolerance
        << " of the tolerance (" << tol.normwise << ", " << tol.elementwise << ")";
  msg << "; seed " << t.seed;
  throw ReferenceDisagreement(msg.str());
}

// The device part of one family's audit: the slices' inputs, the given tensors and the device's
// values of the checked ones, copied to the host.
GatheredFamily gather_family(const DeviceTrial& t, const SliceFamily& f, Executor& ex, const AuditBudget& budget) {
  GatheredFamily g;
  g.family = f;
  g.slices = audit_slices(f, t, budget);
  if (g.slices.empty()) return g;
  g.problem = f.problem(g.slices);
  const std::vector<TensorDecl> sub_decls = t.op.tensors(g.problem);
  if (sub_decls.size() != t.decls.size()) throw std::logic_error(t.op.name() + ": a slice problem declares other tensors");
  g.inputs = allocate_host_inputs(sub_decls);
  g.input_runs.resize(t.decls.size());
  for (std::size_t i = 0; i < t.decls.size(); ++i) {
    if (t.decls[i].role == TensorRole::output) continue;
    g.input_runs[i] = f.runs(static_cast<int>(i), g.slices);
    std::vector<float> values =
        ex.visit([&](auto& e) { return gather(e, t.tensors.in(static_cast<int>(i)), g.input_runs[i]); });
    if (values.size() != g.inputs.data[i].size())
      throw std::logic_error(t.op.name() + ": slice family '" + f.unit + "' gathers " + std::to_string(values.size()) +
                             " elements of " + t.decls[i].name + " for a slice problem of " +
                             std::to_string(g.inputs.data[i].size()));
    g.inputs.data[i] = std::move(values);
  }
  g.given.data.resize(t.decls.size());
  for (int i : f.given) {
    const std::vector<ElementRun> whole{{0, t.decls.at(std::size_t(i)).elements}};
    g.given.data[std::size_t(i)] = ex.visit([&](auto& e) { return gather(e, t.reference[i], whole); });
  }
  g.device.data.resize(t.decls.size());
  for (int c : f.checked)
    g.device.data[std::size_t(c)] = ex.visit([&](auto& e) { return gather(e, t.reference[c], f.runs(c, g.slices)); });
  return g;
}

// The host part: the draws bit for bit, Eigen's slices, and the device's values against them.
void check_family(const GatheredAudit& t, const GatheredFamily& g, ReferenceSummary& summary, FamilyAudit& record) {
  if (g.slices.empty()) return;
  for (std::size_t i = 0; i < t.decls.size(); ++i)
    if (const InputDraw* draw = draw_of(t.draws, static_cast<int>(i)))
      summary.drawn_elements_checked += check_draw(*draw, t, g.input_runs[i], g.inputs.data[i]);
  ReferenceTensors eigen = allocate_references(t.op->tensors(g.problem));
  t.op->slice_reference(g.problem, g.family, g.inputs, g.given, eigen);
  for (int c : g.family.checked)
    compare_slices(t, c, g.device.data.at(std::size_t(c)), eigen.data.at(std::size_t(c)), g.family, g.slices, summary);
  record.slices = std::int64_t(g.slices.size());
}

}  // namespace

std::vector<std::int64_t> audit_slices(const SliceFamily& f, const DeviceTrial& t, const AuditBudget& budget) {
  if (f.count <= 0) return {};
  const std::size_t tensors = t.decls.size();
  const std::int64_t one = slice_problem_elements(f, tensors, {0});
  const std::int64_t per = f.count > 1 ? std::max<std::int64_t>(0, slice_problem_elements(f, tensors, {0, 1}) - one) : one;
  const std::int64_t shared = one - per;
  const auto size_of = [&](std::int64_t k) { return double(shared) + double(per) * double(k); };
  std::vector<std::int64_t> all;
  if (size_of(f.count) <= double(budget.full_elements)) {
    for (std::int64_t s = 0; s < f.count; ++s) all.push_back(s);
    return all;
  }
  // The budget bounds the slices' own elements; what they share (a GEMM's x) is read once anyway.
  // Two slices at least, so that a slice problem is never smaller than the op allows (BatchNorm's M >= 2).
  std::int64_t target = std::min(f.count, budget.max_slices);
  while (target > 2 && double(per) * double(target) > double(budget.max_elements)) target /= 2;
  std::set<std::int64_t> chosen{0};
  if (target > 1) chosen.insert(f.count - 1);
  // Slices where `special` planted NaN/Inf, up to half of them: the reference's paths for those are
  // audited too, and clean slices beside them.
  const std::int64_t with_specials = std::min(target, std::int64_t(chosen.size()) + std::max<std::int64_t>(1, target / 2));
  for (const InputDraw& d : t.draws) {
    if (!d.plants_specials() || !f.slice_of) continue;
    const std::int64_t n = t.decls.at(std::size_t(d.tensor)).elements;
    for (std::int64_t k = 0; k < element_draw::special_count(n) && std::int64_t(chosen.size()) < with_specials; ++k) {
      const std::int64_t s = f.slice_of(d.tensor, element_draw::special_position(t.seed, d.salt, k, n));
      if (s >= 0) chosen.insert(s);
    }
  }
  for (std::uint64_t j = 0; std::int64_t(chosen.size()) < target; ++j)
    chosen.insert(std::int64_t(element_draw::word(t.seed, 0xa0d17u, j, 9) % std::uint64_t(f.count)));
  return {chosen.begin(), chosen.end()};
}

GatheredAudit gather_audit(const DeviceTrial& t, Executor& ex, const AuditBudget& budget) {
  const std::vector<SliceFamily> families = t.op.slice_families(t.problem);
  if (families.empty()) throw std::logic_error(t.op.name() + " has a reference program but no slice families to audit it");
  GatheredAudit g;
  g.op = &t.op;
  g.decls = t.decls;
  g.draws = t.draws;
  g.seed = t.seed;
  g.tolerances = t.tolerances;
  for (const SliceFamily& f : families) g.families.push_back(gather_family(t, f, ex, budget));
  return g;
}

void check_audit(const GatheredAudit& audit, ReferenceSummary& summary) {
  if (summary.families.size() != audit.families.size()) {
    summary.families.clear();
    for (const GatheredFamily& g : audit.families) {
      FamilyAudit a;
      a.unit = g.family.unit;
      a.of = g.family.count;
      for (int c : g.family.checked) a.checked.push_back(audit.decls.at(std::size_t(c)).name);
      summary.families.push_back(a);
    }
  }
  for (std::size_t i = 0; i < audit.families.size(); ++i)
    check_family(audit, audit.families[i], summary, summary.families[i]);
  ++summary.audited_trials;
}

void audit_reference(const DeviceTrial& t, Executor& ex, const AuditBudget& budget, ReferenceSummary& summary) {
  check_audit(gather_audit(t, ex, budget), summary);
}

}  // namespace nb
