#include "harness/validation/compare.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>

#include "harness/parallel.hpp"

namespace nb {


double finite_rms(const std::vector<double>& ref) {
  std::mutex m;
  FiniteSquares total;
  parallel_for(static_cast<std::int64_t>(ref.size()), [&](std::int64_t b, std::int64_t e) {
    FiniteSquares local;
    for (std::int64_t i = b; i < e; ++i) local.add(ref[static_cast<std::size_t>(i)]);
    std::lock_guard<std::mutex> lock(m);
    total.merge(local);
  });
  return total.rms();
}

TensorErrors tensor_errors(const std::string& name, std::int64_t elements, const ErrorTally& t, const Tolerance& tol) {
  TensorErrors e;
  e.name = name;
  e.elements = elements;
  e.bound = tol;
  e.elementwise = t.elementwise;
  e.worst_index = t.worst_index;
  e.worst_value = t.worst_value;
  e.worst_reference = t.worst_reference;
  e.unwritten = t.unwritten;
  e.first_unwritten = t.first_unwritten;
  e.nonfinite_mismatch = t.nonfinite_mismatch;
  e.first_mismatch = t.first_mismatch;
  // An all-zero reference makes the relative error undefined: fall back to the absolute norm.
  e.normwise = t.ref2 > 0 ? std::sqrt(t.diff2 / t.ref2) : std::sqrt(t.diff2);
  return e;
}

TensorErrors compare_tensor(const std::string& name, const std::vector<float>& out, const std::vector<double>& ref,
                            const Tolerance& tol, double reference_rms, DType storage) {
  const std::int64_t n = static_cast<std::int64_t>(ref.size());
  if (out.size() != ref.size()) {
    ErrorTally missing;
    missing.unwritten = n;
    missing.first_unwritten = 0;
    return tensor_errors(name, n, missing, tol);
  }
  const double floor = tol.floor_fraction * (reference_rms >= 0 ? reference_rms : finite_rms(ref));
  std::mutex m;
  ErrorTally total;
  parallel_for(n, [&](std::int64_t b, std::int64_t end) {
    ErrorTally local;
    for (std::int64_t i = b; i < end; ++i)
      local.add(i, is_poison(out[static_cast<std::size_t>(i)]), out[static_cast<std::size_t>(i)], ref[static_cast<std::size_t>(i)],
                floor, tol.absolute, stored::largest_finite(storage));
    std::lock_guard<std::mutex> lock(m);
    total.merge(local);
  });
  return tensor_errors(name, n, total, tol);
}

double TensorErrors::share_of_bound() const {
  const auto share = [](double error, double bound) {
    if (!(error == error)) return std::numeric_limits<double>::infinity();
    return bound > 0 ? error / bound : (error > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  };
  return std::max(share(normwise, bound.normwise), share(elementwise, bound.elementwise));
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
  return judge_trial(decls, tolerance_of, [&](int i, const Tolerance& tol) {
    const double rms = std::size_t(i) < reference.rms.size() ? reference.rms[std::size_t(i)] : -1;
    return compare_tensor(decls[std::size_t(i)].name, outputs.data.at(std::size_t(i)), reference.data.at(std::size_t(i)), tol, rms,
                          decls[std::size_t(i)].dtype);
  }, input_modified);
}

TrialJudgement judge_trial(const std::vector<TensorDecl>& decls, const std::function<Tolerance(int)>& tolerance_of,
                           const std::function<TensorErrors(int, const Tolerance&)>& compare, bool input_modified) {
  TrialJudgement j;
  j.input_modified = input_modified;
  if (input_modified) {
    j.passed = false;
    j.hard_failure = true;
    j.failure = "the launch modified an input tensor";
  }
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::input) continue;
    const Tolerance tol = tolerance_of(static_cast<int>(i));
    TensorErrors e = compare(static_cast<int>(i), tol);
    e.inconclusive = !tol.discriminates();
    j.hard_failure = j.hard_failure || e.hard_failure();
    j.numeric_failure = j.numeric_failure || (!e.hard_failure() && e.numeric_failure());
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
