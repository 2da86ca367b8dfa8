#include "harness/validation/reference_audit.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "harness/host_memory.hpp"
#include "harness/parallel.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/executor.hpp"
#include "harness/validation/gathered_order.hpp"
#include "harness/validation/harness_programs.hpp"

namespace nb {
namespace {

// The elements of the problem the first `k` slices form (k is 1 or 2).
std::int64_t slice_problem_elements(const SliceFamily& f, std::size_t tensors, std::int64_t k) {
  std::vector<std::int64_t> slices;
  if (!f.elements)
    for (std::int64_t s = 0; s < k; ++s) slices.push_back(s);
  std::int64_t n = 0;
  for (std::size_t t = 0; t < tensors; ++t)
    n += f.elements ? f.elements(static_cast<int>(t), k) : run_elements(f.runs(static_cast<int>(t), slices));
  return n;
}

const InputDraw* draw_of(const std::vector<InputDraw>& draws, int tensor) {
  for (const InputDraw& d : draws)
    if (d.tensor == tensor) return &d;
  return nullptr;
}

std::string describe_slices(const SliceFamily& f, const std::vector<std::int64_t>& slices) {
  std::ostringstream s;
  s << slices.size() << " of " << f.count << " " << f.unit << "s";
  return s.str();
}

// The tally of n elements on every core: contiguous chunks, merged in order.
template <class Tally, class Add>
Tally tally_on_cores(std::int64_t n, const Add& add) {
  constexpr std::int64_t kChunk = std::int64_t(1) << 16;
  std::vector<Tally> partial(std::size_t((n + kChunk - 1) / kChunk));
  parallel_for(std::int64_t(partial.size()), [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c)
      for (std::int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) add(partial[std::size_t(c)], i);
  }, 1);
  Tally total;
  for (const Tally& p : partial) total.merge(p);
  return total;
}

// The device drew what the host draws: at the sampled positions of a declared draw's gathered
// order, the device's values against the host's, bit for bit. Returns how many it checked.
std::int64_t check_draw(const StagedAudit& t, int tensor, const GatheredOrder& order, const std::vector<std::int64_t>& sample,
                        const float* host, const float* device) {
  const TensorDecl& decl = t.decls.at(static_cast<std::size_t>(tensor));
  for (std::size_t j = 0; j < sample.size(); ++j) {
    if (std::memcmp(&host[j], &device[j], sizeof(float)) == 0) continue;
    std::ostringstream msg;
    msg << "the device drew " << decl.name << "[" << order.source(sample[j]) << "] = " << device[j]
        << ", the host draws " << host[j] << " (seed " << t.seed << ")";
    throw ReferenceDisagreement(msg.str());
  }
  return std::int64_t(sample.size());
}

// The sampled positions of a gathered order as runs of one element of the full tensor.
std::vector<ElementRun> sample_runs(const GatheredOrder& order, const std::vector<std::int64_t>& sample) {
  std::vector<ElementRun> runs;
  runs.reserve(sample.size());
  for (std::int64_t k : sample) runs.push_back({order.source(k), 1});
  return runs;
}

std::vector<float> values_at(const float* values, const std::vector<std::int64_t>& sample) {
  std::vector<float> out(sample.size());
  for (std::size_t j = 0; j < sample.size(); ++j) out[j] = values[sample[j]];
  return out;
}

bool drawn_on_host(const InputDraw& draw, std::int64_t elements, const AuditBudget& budget) {
  return draw.uniform() || elements <= budget.host_drawn_elements;
}

// The device's values of one output against Eigen's over the audited slices.
void compare_slices(const StagedAudit& t, int tensor, const Landing<double>& device, const std::vector<double>& eigen,
                    const SliceFamily& f, const std::vector<std::int64_t>& slices, ReferenceSummary& summary) {
  const TensorDecl& decl = t.decls.at(static_cast<std::size_t>(tensor));
  const Tolerance& tol = t.tolerances.per_tensor.at(static_cast<std::size_t>(tensor));
  if (device.count != std::int64_t(eigen.size()))
    throw std::logic_error(t.op->name() + ": slice family '" + f.unit + "' gives " + decl.name + " " +
                           std::to_string(eigen.size()) + " elements in its problem and " + std::to_string(device.count) +
                           " runs");
  const std::int64_t n = device.count;
  const double floor =
      tol.floor_fraction *
      tally_on_cores<FiniteSquares>(n, [&](FiniteSquares& s, std::int64_t i) { s.add(eigen[std::size_t(i)]); }).rms();
  const ErrorTally tally = tally_on_cores<ErrorTally>(n, [&](ErrorTally& e, std::int64_t i) {
    e.add(i, false, device.at[i], eigen[std::size_t(i)], floor, 0.0);
  });
  const TensorErrors e = tensor_errors(decl.name, n, tally, tol);
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
        << " of the audited ones (device " << device.at[e.first_mismatch] << ", Eigen "
        << eigen[std::size_t(e.first_mismatch)] << ")";
  else
    msg << "normwise " << e.normwise << ", elementwise " << e.elementwise << " (device " << e.worst_value << ", Eigen "
        << e.worst_reference << " at audited element " << e.worst_index << "), above " << kAuditShareOfTolerance
        << " of the tolerance (" << tol.normwise << ", " << tol.elementwise << ")";
  msg << "; seed " << t.seed;
  throw ReferenceDisagreement(msg.str());
}

// The gather of `runs` of an executor's tensor into staged host memory, enqueued.
template <class T, class Source>
Landing<T> land(Executor& ex, Source source, const std::vector<ElementRun>& runs, AuditStaging& staging) {
  Landing<T> l;
  l.count = run_elements(runs);
  T* host = staging.host<T>(l.count);
  l.at = host;
  ex.visit([&](auto& e) { gather_into(e, source, runs, host, staging); });
  return l;
}

// The device part of one family's audit: its slices, and the copies of what the host cannot draw.
StagedFamily stage_family(const DeviceTrial& t, const SliceFamily& f, Executor& ex, const AuditBudget& budget,
                          AuditStaging& staging) {
  StagedFamily g;
  g.family = f;
  g.slices = audit_slices(f, t, budget);
  if (g.slices.empty()) return g;
  g.problem = f.problem(g.slices);
  g.decls = t.op.tensors(g.problem);
  const std::size_t tensors = t.decls.size();
  if (g.decls.size() != tensors) throw std::logic_error(t.op.name() + ": a slice problem declares other tensors");
  g.input_runs.resize(tensors);
  g.from_device.resize(tensors);
  g.drawn_sample.resize(tensors);
  for (std::size_t i = 0; i < tensors; ++i) {
    if (t.decls[i].role == TensorRole::output) continue;
    const int tensor = static_cast<int>(i);
    g.input_runs[i] = f.runs(tensor, g.slices);
    if (run_elements(g.input_runs[i]) != g.decls[i].elements)
      throw std::logic_error(t.op.name() + ": slice family '" + f.unit + "' gathers " +
                             std::to_string(run_elements(g.input_runs[i])) + " elements of " + t.decls[i].name +
                             " for a slice problem of " + std::to_string(g.decls[i].elements));
    const InputDraw* draw = draw_of(t.draws, tensor);
    if (!draw || !drawn_on_host(*draw, g.decls[i].elements, budget)) {
      g.from_device[i] = land<float>(ex, t.tensors.in(tensor), g.input_runs[i], staging);
      continue;
    }
    const GatheredOrder order(g.input_runs[i]);
    g.drawn_sample[i] = land<float>(ex, t.tensors.in(tensor), sample_runs(order, audit_draw_sample(order.size())), staging);
  }
  g.given.resize(tensors);
  for (int i : f.given)
    g.given[std::size_t(i)] = land<double>(ex, t.reference[i], {{0, t.decls.at(std::size_t(i)).elements}}, staging);
  g.device.resize(tensors);
  for (int c : f.checked) g.device[std::size_t(c)] = land<double>(ex, t.reference[c], f.runs(c, g.slices), staging);
  return g;
}

// `values` holding n elements, its memory kept from an earlier trial where it can be.
template <class T>
void reuse(std::vector<T>& values, std::int64_t n) {
  resize_on_huge_pages(values, std::size_t(n));
}

// A landing's values into `values` (its memory kept from the last trial), on every core: a copied
// input may be a GEMM's whole x.
void copy_on_cores(const Landing<float>& from, std::vector<float>& values) {
  reuse(values, from.count);
  parallel_for(from.count, [&](std::int64_t b, std::int64_t e) { std::copy(from.at + b, from.at + e, values.begin() + b); });
}

// Input i of the slice problem into `values`: the device's copy, or the host's own draw; a declared
// draw is checked on its sample, the host's values against the device's. Returns the elements checked.
std::int64_t slice_input(const StagedAudit& t, const StagedFamily& g, std::size_t i, std::vector<float>& values) {
  const Landing<float>& copied = g.from_device[i];
  if (copied.at) copy_on_cores(copied, values);
  const InputDraw* draw = draw_of(t.draws, static_cast<int>(i));
  if (!draw) return 0;
  const int tensor = static_cast<int>(i);
  const GatheredOrder order(g.input_runs[i]);
  const std::vector<std::int64_t> sample = audit_draw_sample(order.size());
  if (copied.at) {
    std::vector<float> host(sample.size());
    draw_gathered(*draw, t.seed, t.decls[i], GatheredOrder(sample_runs(order, sample)), host.data());
    return check_draw(t, tensor, order, sample, host.data(), values_at(values.data(), sample).data());
  }
  if (g.drawn_sample[i].count != std::int64_t(sample.size()))
    throw std::logic_error("the audit took " + std::to_string(g.drawn_sample[i].count) + " drawn values of " +
                           t.decls[i].name + " from the device for a sample of " + std::to_string(sample.size()));
  reuse(values, order.size());
  draw_gathered(*draw, t.seed, t.decls[i], order, values.data());
  return check_draw(t, tensor, order, sample, values_at(values.data(), sample).data(), g.drawn_sample[i].at);
}

// Eigen's results of a slice problem, zeroed, in memory kept from the last trial.
void zeroed_references(const std::vector<TensorDecl>& decls, ReferenceTensors& eigen) {
  eigen.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::input) continue;
    std::vector<double>& values = eigen.data[i];
    reuse(values, decls[i].elements);
    parallel_for(std::int64_t(values.size()), [&](std::int64_t b, std::int64_t e) {
      std::fill(values.begin() + b, values.begin() + e, 0.0);
    });
  }
}

// The host part: the slices' inputs, Eigen's slices, and the device's values against them.
void check_family(const StagedAudit& t, const StagedFamily& g, AuditHostMemory::Family& memory,
                  ReferenceSummary& summary, FamilyAudit& record) {
  if (g.slices.empty()) return;
  const std::size_t tensors = t.decls.size();
  memory.inputs.data.resize(tensors);
  for (std::size_t i = 0; i < tensors; ++i)
    if (t.decls[i].role != TensorRole::output)
      summary.drawn_elements_checked += slice_input(t, g, i, memory.inputs.data[i]);
  memory.given.data.resize(tensors);
  for (int i : g.family.given) memory.given.data[std::size_t(i)] = g.given[std::size_t(i)].values();
  zeroed_references(g.decls, memory.eigen);
  t.op->slice_reference(g.problem, g.family, memory.inputs, memory.given, memory.eigen);
  for (int c : g.family.checked)
    compare_slices(t, c, g.device.at(std::size_t(c)), memory.eigen.data.at(std::size_t(c)), g.family, g.slices, summary);
  record.slices = std::int64_t(g.slices.size());
}

}  // namespace

std::vector<std::int64_t> audit_slices(const SliceFamily& f, const DeviceTrial& t, const AuditBudget& budget) {
  if (f.count <= 0) return {};
  const std::size_t tensors = t.decls.size();
  const std::int64_t one = slice_problem_elements(f, tensors, 1);
  const std::int64_t per = f.count > 1 ? std::max<std::int64_t>(0, slice_problem_elements(f, tensors, 2) - one) : one;
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
  if (f.max_slices > 0) target = std::min(target, std::max<std::int64_t>(2, f.max_slices));
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

StagedAudit stage_audit(const DeviceTrial& t, Executor& ex, const AuditBudget& budget, AuditStaging& staging) {
  const std::vector<SliceFamily> families = t.op.slice_families(t.problem);
  if (families.empty()) throw std::logic_error(t.op.name() + " has a reference program but no slice families to audit it");
  StagedAudit g;
  g.op = &t.op;
  g.decls = t.decls;
  g.draws = t.draws;
  g.seed = t.seed;
  g.tolerances = t.tolerances;
  for (const SliceFamily& f : families) g.families.push_back(stage_family(t, f, ex, budget, staging));
  g.arrival = arrival(ex);
  return g;
}

void check_audit(const StagedAudit& audit, ReferenceSummary& summary, AuditHostMemory& memory) {
  audit.arrival();
  if (summary.families.size() != audit.families.size()) {
    summary.families.clear();
    for (const StagedFamily& g : audit.families) {
      FamilyAudit a;
      a.unit = g.family.unit;
      a.of = g.family.count;
      for (int c : g.family.checked) a.checked.push_back(audit.decls.at(std::size_t(c)).name);
      summary.families.push_back(a);
    }
  }
  memory.families.resize(audit.families.size());
  for (std::size_t i = 0; i < audit.families.size(); ++i)
    check_family(audit, audit.families[i], memory.families[i], summary, summary.families[i]);
  ++summary.audited_trials;
}

void audit_reference(const DeviceTrial& t, Executor& ex, const AuditBudget& budget, ReferenceSummary& summary) {
  AuditStaging staging(ex.on_device());
  AuditHostMemory memory;
  check_audit(stage_audit(t, ex, budget, staging), summary, memory);
}

std::vector<std::int64_t> audit_draw_sample(std::int64_t total) {
  const std::int64_t checks = std::min(total, kAuditDrawSample);
  std::vector<std::int64_t> positions(static_cast<std::size_t>(checks));
  for (std::int64_t j = 0; j < checks; ++j) positions[std::size_t(j)] = checks == total ? j : j * (total / checks);
  return positions;
}

}  // namespace nb
