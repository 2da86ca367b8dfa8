#include "harness/validation/compare.hpp"

#include <cmath>
#include <cstring>
#include <mutex>
#include <sstream>

#include "harness/parallel.hpp"

namespace nb {

bool is_poison(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == kPoisonBits;
}

float poison_value() {
  float v;
  std::memcpy(&v, &kPoisonBits, sizeof v);
  return v;
}

namespace {

// Placement, not kind: where the reference is non-finite the output must be non-finite too.
// NaN may stand for an infinity (Welford turns +Inf into Inf - Inf = NaN, as PyTorch's kernels
// do), but an infinity in the output must have the reference's sign.
bool same_nonfinite(double y, double r) {
  if (std::isfinite(y)) return false;
  return std::isnan(y) || std::isnan(r) || y == r;
}

}  // namespace

double finite_rms(const std::vector<double>& ref) {
  std::mutex m;
  double sum = 0;
  std::int64_t finite = 0;
  parallel_for(static_cast<std::int64_t>(ref.size()), [&](std::int64_t b, std::int64_t e) {
    double s = 0;
    std::int64_t f = 0;
    for (std::int64_t i = b; i < e; ++i)
      if (std::isfinite(ref[i])) s += ref[i] * ref[i], ++f;
    std::lock_guard<std::mutex> lock(m);
    sum += s;
    finite += f;
  });
  return finite ? std::sqrt(sum / static_cast<double>(finite)) : 0.0;
}

TensorErrors compare_tensor(const std::string& name, const std::vector<float>& out, const std::vector<double>& ref,
                            const Tolerance& tol, double reference_rms) {
  TensorErrors e;
  e.name = name;
  e.elements = static_cast<std::int64_t>(ref.size());
  e.bound = tol;
  if (out.size() != ref.size()) {
    e.unwritten = e.elements;
    e.first_unwritten = 0;
    return e;
  }
  const double floor = tol.floor_fraction * (reference_rms >= 0 ? reference_rms : finite_rms(ref));
  std::mutex m;
  double diff2 = 0, ref2 = 0;
  parallel_for(e.elements, [&](std::int64_t b, std::int64_t end) {
    TensorErrors local;
    double d2 = 0, r2 = 0;
    for (std::int64_t i = b; i < end; ++i) {
      const float y = out[i];
      const double r = ref[i];
      if (is_poison(y)) {
        if (local.unwritten++ == 0) local.first_unwritten = i;
        continue;
      }
      if (!std::isfinite(r) || !std::isfinite(y)) {
        if (!std::isfinite(r) && same_nonfinite(y, r)) continue;
        if (local.nonfinite_mismatch++ == 0) local.first_mismatch = i;
        continue;
      }
      const double d = std::max(0.0, std::fabs(static_cast<double>(y) - r) - tol.absolute);
      d2 += d * d;
      r2 += r * r;
      const double denominator = std::fabs(r) + floor;  // 0 only when the reference is all zeros
      const double rel = denominator > 0 ? std::fabs(d) / denominator : (d == 0 ? 0.0 : INFINITY);
      if (local.worst_index < 0 || rel > local.elementwise) {
        local.elementwise = rel;
        local.worst_index = i;
        local.worst_value = y;
        local.worst_reference = r;
      }
    }
    std::lock_guard<std::mutex> lock(m);
    diff2 += d2;
    ref2 += r2;
    if (local.unwritten && (e.first_unwritten < 0 || local.first_unwritten < e.first_unwritten))
      e.first_unwritten = local.first_unwritten;
    if (local.nonfinite_mismatch && (e.first_mismatch < 0 || local.first_mismatch < e.first_mismatch))
      e.first_mismatch = local.first_mismatch;
    e.unwritten += local.unwritten;
    e.nonfinite_mismatch += local.nonfinite_mismatch;
    if (local.worst_index >= 0 && (e.worst_index < 0 || local.elementwise > e.elementwise)) {
      e.elementwise = local.elementwise;
      e.worst_index = local.worst_index;
      e.worst_value = local.worst_value;
      e.worst_reference = local.worst_reference;
    }
  });
  // An all-zero reference makes the relative error undefined: fall back to the absolute norm.
  e.normwise = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return e;
}

std::string tensor_failure(const TensorErrors& e, const Tolerance& tol) {
  std::ostringstream msg;
  if (e.unwritten > 0) {
    msg << e.name << ": " << e.unwritten << " unwritten element" << (e.unwritten == 1 ? "" : "s")
        << " (first at index " << e.first_unwritten << ")";
  } else if (e.nonfinite_mismatch > 0) {
    msg << e.name << ": NaN/Inf placement differs from the reference at " << e.nonfinite_mismatch
        << " element" << (e.nonfinite_mismatch == 1 ? "" : "s") << " (first at index " << e.first_mismatch << ")";
  } else if (!(e.normwise <= tol.normwise)) {
    msg << e.name << ": normwise relative error " << e.normwise << " > " << tol.normwise;
  } else if (!(e.elementwise <= tol.elementwise)) {
    msg << e.name << ": elementwise error " << e.elementwise << " > " << tol.elementwise << " at index "
        << e.worst_index << " (got " << e.worst_value << ", reference " << e.worst_reference << ")";
  }
  return msg.str();
}

TrialJudgement judge_trial(const std::vector<TensorDecl>& decls, const HostTensors& outputs,
                           const ReferenceTensors& reference, const Tolerance& tol, bool input_modified) {
  return judge_trial(decls, outputs, reference, [&](int) { return tol; }, input_modified);
}

TrialJudgement judge_trial(const std::vector<TensorDecl>& decls, const HostTensors& outputs,
                           const ReferenceTensors& reference, const std::function<Tolerance(int)>& tolerance_of,
                           bool input_modified) {
  TrialJudgement j;
  j.input_modified = input_modified;
  if (input_modified) {
    j.passed = false;
    j.failure = "the launch modified an input tensor";
  }
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::input) continue;
    const Tolerance tol = tolerance_of(static_cast<int>(i));
    const double rms = i < reference.rms.size() ? reference.rms[i] : -1;
    TensorErrors e = compare_tensor(decls[i].name, outputs.data.at(i), reference.data.at(i), tol, rms);
    std::string why = tensor_failure(e, tol);
    if (!why.empty() && j.passed) {
      j.passed = false;
      j.failure = why;
    }
    j.tensors.push_back(std::move(e));
  }
  return j;
}

}  // namespace nb
