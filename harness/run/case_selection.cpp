#include "harness/run/case_selection.hpp"

#include <algorithm>
#include <set>

#include "harness/errors.hpp"

namespace nb {
namespace {

bool wanted(const std::vector<std::string>& filter, const std::string& name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

struct ChosenProblem {
  const OpSpec* op;
  Problem problem;
  std::vector<std::string> suites;
};

std::vector<std::string> suites_of(const OpSpec& op, const Problem& p) {
  for (const auto& np : op.named_problems())
    for (DType t : np.dtypes)
      if (t == p.dtype && op.make_problem(np.params, t).id() == p.id()) return np.suites;
  return {};
}

// Which filter emptied a suite's selection: --op (no problem of those ops in the suite) or --dtype.
std::string why_no_problem(const Selection& s, const std::set<std::string>& dtypes_in_suite) {
  std::string ops;
  for (const auto& name : s.ops) ops += (ops.empty() ? "" : ",") + name;
  const std::string of_ops = ops.empty() ? "" : " of --op " + ops;
  if (dtypes_in_suite.empty()) return "suite '" + s.suite + "' has no problem" + of_ops + " (check --op and --suite)";
  std::string dtypes;
  for (const auto& name : dtypes_in_suite) dtypes += (dtypes.empty() ? "" : ", ") + name;
  return "--dtype " + s.dtype + " matches no problem of suite '" + s.suite + "'" + of_ops + " (dtypes there: " +
         dtypes + ")";
}

std::vector<ChosenProblem> choose_problems(const Registry& registry, const Selection& s) {
  std::vector<ChosenProblem> chosen;
  if (!s.params.empty()) {
    if (s.ops.size() != 1) throw UsageError("--params needs exactly one --op");
    const OpSpec& op = registry.op(s.ops.front());
    Problem p = op.make_problem(Params::parse(s.params), parse_dtype(s.dtype.empty() ? "fp32" : s.dtype));
    chosen.push_back({&op, p, suites_of(op, p)});
    return chosen;
  }
  if (!s.problems.empty()) {
    for (const auto& id : s.problems) {
      const OpSpec& op = registry.op_of_problem_id(id);
      if (!wanted(s.ops, op.name())) throw UsageError("problem " + id + " is not of the selected ops");
      Problem p = op.parse_problem_id(id);
      if (!s.dtype.empty() && s.dtype != dtype_name(p.dtype))
        throw UsageError("--dtype " + s.dtype + " and --problem " + id + " disagree: a problem id carries its dtype (" +
                         dtype_name(p.dtype) + "); drop --dtype or name the problem of that dtype");
      chosen.push_back({&op, p, suites_of(op, p)});
    }
    return chosen;
  }
  const auto known = registry.suites();
  if (std::find(known.begin(), known.end(), s.suite) == known.end()) {
    std::string names;
    for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
    throw UsageError("unknown suite '" + s.suite + "' (suites: " + names + ")");
  }
  for (const auto& name : s.ops) registry.op(name);  // unknown op names fail here
  const bool any_dtype = s.dtype.empty();
  const DType only = any_dtype ? DType::f32 : parse_dtype(s.dtype);
  std::set<std::string> dtypes_in_suite;  // of the selected ops: what --dtype could have chosen
  for (const auto& op : registry.ops()) {
    if (!wanted(s.ops, op->name())) continue;
    for (const auto& np : op->named_problems()) {
      if (std::find(np.suites.begin(), np.suites.end(), s.suite) == np.suites.end()) continue;
      for (DType t : np.dtypes) {
        dtypes_in_suite.insert(dtype_name(t));
        if (any_dtype || t == only) chosen.push_back({op.get(), op->make_problem(np.params, t), np.suites});
      }
    }
  }
  if (chosen.empty()) throw UsageError(why_no_problem(s, dtypes_in_suite));
  return chosen;
}

}  // namespace

std::vector<RunCase> select_cases(const Registry& registry, const Selection& s) {
  std::vector<RunCase> cases;
  std::set<std::string> seen_variants;
  std::set<std::string> seen_cases;
  for (auto& cp : choose_problems(registry, s)) {
    for (const auto& v : cp.op->variants()) {
      if (!wanted(s.variants, v->name())) continue;
      seen_variants.insert(v->name());
      RunCase c{cp.op, v.get(), cp.problem, cp.suites};
      if (seen_cases.insert(c.name()).second) cases.push_back(std::move(c));
    }
  }
  for (const auto& v : s.variants)
    if (!seen_variants.count(v)) throw UsageError("no selected op has a variant named '" + v + "'");
  if (cases.empty()) throw UsageError("the selection matches no case (check --op, --suite, --problem)");
  return cases;
}

}  // namespace nb
