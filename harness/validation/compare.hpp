#pragma once
// Comparing one trial's outputs with the float64 reference: normwise relative error, the worst
// elementwise error above a floor, NaN/Inf placement, and elements still holding the poison.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/stored_value.hpp"
#include "harness/tensors.hpp"
#include "harness/tolerance.hpp"
#include "harness/validation/error_tally.hpp"

namespace nb {

struct TensorErrors {
  std::string name;
  std::int64_t elements = 0;
  double normwise = 0;               // ||y - ref|| / ||ref|| over positions where ref is finite
  double elementwise = 0;            // max |y - ref| / (|ref| + floor) over those positions
  std::int64_t worst_index = -1;     // where elementwise peaks (or the first unwritten/mismatch)
  double worst_value = 0, worst_reference = 0;
  std::int64_t unwritten = 0;        // still the poison pattern
  std::int64_t first_unwritten = -1;
  std::int64_t nonfinite_mismatch = 0;  // NaN/Inf placement differs from the reference
  std::int64_t first_mismatch = -1;
  Tolerance bound;  // what this tensor was held to (the trial's tolerance scaled by its condition)
  // The bound is too loose to tell right from wrong (discrimination_ceiling): the numeric check
  // is shown but proves nothing.
  bool inconclusive = false;

  // Unwritten elements or NaN/Inf out of place: wrong on any distribution, stress or not.
  bool hard_failure() const { return unwritten > 0 || nonfinite_mismatch > 0; }
  // The normwise or elementwise error beyond its bound.
  bool numeric_failure() const { return !(normwise <= bound.normwise) || !(elementwise <= bound.elementwise); }
  // The larger of the two errors as a share of its bound (above 1 fails).
  double share_of_bound() const;
};

// `reference_rms` (the rms of the finite reference values, which sets the floor) is computed
// when negative; a caller comparing many outputs with one reference passes it in. `storage` is
// the output's type (a reference beyond its range is an infinity once stored).
TensorErrors compare_tensor(const std::string& name, const std::vector<float>& out, const std::vector<double>& ref,
                            const Tolerance& tol, double reference_rms = -1, DType storage = DType::f32);

double finite_rms(const std::vector<double>& ref);

// The TensorErrors of a whole tensor's tally (error_tally.hpp), host or device alike.
TensorErrors tensor_errors(const std::string& name, std::int64_t elements, const ErrorTally& tally, const Tolerance& tol);

// "" when the tensor is within tolerance, else a one-line reason naming the tensor.
std::string tensor_failure(const TensorErrors& e, const Tolerance& tol);

struct TrialJudgement {
  bool passed = true;
  bool input_modified = false;
  // What failed: a check that holds on every distribution (unwritten, NaN/Inf placement, a
  // changed input), or a numeric bound, which a stress distribution may relax.
  bool hard_failure = false;
  bool numeric_failure = false;
  std::vector<TensorErrors> tensors;  // one per output or inout tensor, in declaration order
  std::string failure;                // first reason, "" when passed
};

// Judges every output and inout tensor of one trial (reference.rms, when filled, is reused). `outputs` holds the downloaded device
// values at the output/inout indices; `input_modified` comes from the input hashes.
TrialJudgement judge_trial(const std::vector<TensorDecl>& decls, const HostTensors& outputs,
                           const ReferenceTensors& reference, const Tolerance& tol, bool input_modified);
// The same with a tolerance per tensor index (conditions differ between outputs).
TrialJudgement judge_trial(const std::vector<TensorDecl>& decls, const HostTensors& outputs,
                           const ReferenceTensors& reference, const std::function<Tolerance(int)>& tolerance_of,
                           bool input_modified);
// The same wherever the outputs and the reference live: compare(i, tolerance) gives tensor i's errors.
TrialJudgement judge_trial(const std::vector<TensorDecl>& decls, const std::function<Tolerance(int)>& tolerance_of,
                           const std::function<TensorErrors(int, const Tolerance&)>& compare, bool input_modified);

}  // namespace nb
