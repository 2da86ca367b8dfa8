#include "harness/odd_sibling.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "harness/errors.hpp"

namespace nb {
namespace {

constexpr int kTries = 12;  // values tried per parameter on each side

bool is_odd_prime(std::int64_t v) {
  if (v < 3 || v % 2 == 0) return false;
  for (std::int64_t d = 3; d * d <= v; d += 2)
    if (v % d == 0) return false;
  return true;
}

// The odd primes below d, nearest first, then the odd values above it, within [lo, hi]; none for
// 1 (odd already, and a dimension of 1 is a layout: a 2d GroupNorm input is N, C, 1, 1).
std::vector<std::int64_t> odd_neighbours(std::int64_t d, double lo, double hi) {
  std::vector<std::int64_t> values;
  if (d == 1) return values;
  for (std::int64_t v = d - 1; v >= 3 && v >= lo && static_cast<int>(values.size()) < kTries; --v)
    if (is_odd_prime(v)) values.push_back(v);
  int above = 0;
  for (std::int64_t v = d % 2 ? d + 2 : d + 1; v <= hi && above < kTries; v += 2, ++above)
    if (v >= lo) values.push_back(v);
  return values;
}

std::optional<Problem> accepted(const OpSpec& op, const Params& params, DType dtype) {
  try {
    return op.make_problem(params, dtype);
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

std::int64_t elements_of(const OpSpec& op, const Problem& p) { return total_elements(op.tensors(p)); }

std::vector<ParamDecl> integer_params(const OpSpec& op) {
  std::vector<ParamDecl> out;
  for (const ParamDecl& d : op.param_decls())
    if (d.integer) out.push_back(d);
  return out;
}

// Halves one parameter, the largest first that the op accepts halved; false when none.
bool halve_largest(const OpSpec& op, std::vector<ParamDecl> decls, Problem& current) {
  std::stable_sort(decls.begin(), decls.end(), [&](const ParamDecl& a, const ParamDecl& b) {
    return current.dim(a.name) > current.dim(b.name);
  });
  for (const ParamDecl& d : decls) {
    const std::int64_t half = current.dim(d.name) / 2;
    if (half < d.min_value || half < 1) continue;
    Params next = current.params;
    next.set(d.name, static_cast<double>(half));
    if (auto p = accepted(op, next, current.dtype)) {
      current = *p;
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<Problem> odd_sibling(const OpSpec& op, const Problem& problem, std::int64_t max_elements) {
  const std::vector<ParamDecl> decls = integer_params(op);
  Problem current = problem;
  while (elements_of(op, current) > max_elements)
    if (!halve_largest(op, decls, current)) return std::nullopt;
  bool moved = false;
  for (const ParamDecl& d : decls) {
    for (std::int64_t v : odd_neighbours(current.dim(d.name), d.min_value, d.max_value)) {
      Params next = current.params;
      next.set(d.name, static_cast<double>(v));
      auto p = accepted(op, next, current.dtype);
      if (!p || elements_of(op, *p) > 2 * max_elements) continue;
      current = *p;
      moved = true;
      break;
    }
  }
  if (!moved) return std::nullopt;
  return current;
}

}  // namespace nb
