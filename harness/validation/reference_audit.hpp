#pragma once
// Eigen's audit of a reference computed on the device (docs/validation.md). For each of the op's
// slice families it draws a sample of slices from the trial's seed (every slice of a small
// problem; else the first, the last, those holding `special`'s NaN/Inf, and random ones up to 64, or
// fewer (two at least) when the slices' own elements pass a budget), takes the inputs of those slices from the device, checks that the declared
// draws among them hold the bits the host draws, recomputes the slices with the op's Eigen
// reference and compares them with the device's values. A disagreement beyond
// kAuditShareOfTolerance of a tensor's tolerance throws ReferenceDisagreement.
#include <cstdint>
#include <vector>

#include "harness/op_spec.hpp"
#include "harness/validation/reference_summary.hpp"
#include "harness/validation/trial_tolerance.hpp"

namespace nb {

struct AuditBudget {
  std::int64_t full_elements = std::int64_t(1) << 22;  // a problem this small is audited whole
  std::int64_t max_slices = 64;
  std::int64_t max_elements = std::int64_t(1) << 25;  // of the slices' own elements: beyond, fewer slices (two at least)
};

struct DeviceTrial {
  const OpSpec& op;
  const Problem& problem;
  const std::vector<TensorDecl>& decls;
  const ProgramTensors& tensors;      // the trial's inputs, in place
  const ProgramReference& reference;  // the device's float64 reference
  const std::vector<InputDraw>& draws;
  std::uint64_t seed;
  const TrialTolerances& tolerances;
};

// The slices of `family` the audit takes for a trial of `seed`, ascending.
std::vector<std::int64_t> audit_slices(const SliceFamily& family, const DeviceTrial& trial, const AuditBudget& budget);

// What one family's audit took from the device: host copies only.
struct GatheredFamily {
  SliceFamily family;
  std::vector<std::int64_t> slices;  // empty: nothing to audit
  Problem problem;                   // the slice problem
  HostTensors inputs;                // its inputs (and inouts) as the device held them
  std::vector<std::vector<ElementRun>> input_runs;  // where each input's values sit in the full tensor
  ReferenceTensors given;            // the device reference's tensors the slices need whole
  ReferenceTensors device;           // the device reference's values of the checked tensors
};

// What a trial's audit took from the device, and the trial's facts its host part needs. It stays
// valid after the trial's buffers change: the host part can run while the variants do.
struct GatheredAudit {
  const OpSpec* op = nullptr;
  std::vector<TensorDecl> decls;
  std::vector<InputDraw> draws;
  std::uint64_t seed = 0;
  TrialTolerances tolerances;
  std::vector<GatheredFamily> families;
};

// The audit in two parts: gather_audit copies the sampled slices' inputs and the device reference's
// values to the host (device work, before anything else writes the buffers); check_audit redraws
// the inputs on the host, recomputes the slices with Eigen and compares (host work; it throws
// ReferenceDisagreement and adds what it saw to `summary`).
GatheredAudit gather_audit(const DeviceTrial& trial, Executor& ex, const AuditBudget& budget);
void check_audit(const GatheredAudit& audit, ReferenceSummary& summary);

// Both parts at once.
void audit_reference(const DeviceTrial& trial, Executor& ex, const AuditBudget& budget, ReferenceSummary& summary);

}  // namespace nb
