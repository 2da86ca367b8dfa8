#pragma once
// Eigen's audit of a reference computed on the device (docs/validation.md). For each of the op's
// slice families it draws a sample of slices from the trial's seed (every slice of a small
// problem; else the first, the last, those holding `special`'s NaN/Inf, and random ones up to 64, or
// fewer (two at least) when the slices' own elements pass a budget). The host draws the declared
// inputs of those slices itself where that is cheap (else they come from the device) and checks a
// sample of the device's draws against its own bit for bit; the derived inputs and the device
// reference's values of the slices come from the device. Eigen recomputes the slices with the op's
// reference and compares them with the device's values. A disagreement beyond
// kAuditShareOfTolerance of a tensor's tolerance throws ReferenceDisagreement.
#include <cstdint>
#include <functional>
#include <vector>

#include "harness/op_spec.hpp"
#include "harness/validation/audit_staging.hpp"
#include "harness/validation/reference_summary.hpp"
#include "harness/validation/trial_tolerance.hpp"

namespace nb {

// The input elements of one tensor whose draw the audit checks per trial, spread over the gathered
// ones (audit_draw_sample).
inline constexpr std::int64_t kAuditDrawSample = std::int64_t(1) << 16;

struct AuditBudget {
  std::int64_t full_elements = std::int64_t(1) << 22;  // a problem this small is audited whole
  std::int64_t max_slices = 64;
  std::int64_t max_elements = std::int64_t(1) << 25;  // of the slices' own elements: beyond, fewer slices (two at least)
  // A declared input of the slices is drawn on the host when its rule is uniform or it has at most
  // this many elements (the draw sample's size); a larger normal or `wide` one is
  // copied from the device instead, and the host draws only its sample (a core draws ~25M of them
  // a second, a pinned copy moves ~6G a second: docs/validation.md).
  std::int64_t host_drawn_elements = kAuditDrawSample;
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

// Values an executor copies into host memory in its own time: they are there once the audit's
// arrival has returned.
template <class T>
struct Landing {
  const T* at = nullptr;
  std::int64_t count = 0;
  std::vector<T> values() const { return std::vector<T>(at, at + count); }
};

// What one family's audit takes from the device, on its way to the host, and where the rest is.
struct StagedFamily {
  SliceFamily family;
  std::vector<std::int64_t> slices;  // empty: nothing to audit
  Problem problem;                   // the slice problem
  std::vector<TensorDecl> decls;     // its tensors
  std::vector<std::vector<ElementRun>> input_runs;  // per input (and inout): where its values sit in the full tensor
  // Per input: the device's values of the slices where the host does not draw them (a derived
  // input, or a declared draw too costly to draw: AuditBudget::host_drawn_elements), or else
  // those of a declared draw at the sampled positions of its gathered order (audit_draw_sample).
  std::vector<Landing<float>> from_device, drawn_sample;
  std::vector<Landing<double>> given;   // the device reference's tensors the slices need whole
  std::vector<Landing<double>> device;  // the device reference's values of the checked tensors
};

// A trial's audit as the host thread needs it: what is on its way from the device, and the
// trial's facts. It stays valid after the trial's buffers change: the host part can run while the
// variants do.
struct StagedAudit {
  const OpSpec* op = nullptr;
  std::vector<TensorDecl> decls;
  std::vector<InputDraw> draws;
  std::uint64_t seed = 0;
  TrialTolerances tolerances;
  std::vector<StagedFamily> families;
  std::function<void()> arrival;  // returns once every landing holds its values
};

// The host memory check_audit works in, kept from trial to trial (the slice problems are about
// the same size in every trial of a problem, and a fresh multi-GB allocation is faulted in on one
// core): per family, the slices' inputs, the device reference's tensors given whole, Eigen's results.
struct AuditHostMemory {
  struct Family {
    HostTensors inputs;
    ReferenceTensors given, eigen;
  };
  std::vector<Family> families;
};

// The audit in two parts. stage_audit (device work, in stream order, before anything else can
// write the buffers) chooses the slices and enqueues the copies of what the host does not draw
// itself (the derived inputs of the slices and the large non-uniform draws), a sample of each
// other declared draw's values, and the device reference's values, into `staging`; it waits for
// nothing. check_audit (host work, on any thread; `staging` must not be recycled before it
// returns, and `memory` is its own) waits for the copies, draws the slices' other declared inputs
// itself, checks every declared draw on its sample bit for bit (the device's values against the
// host's), recomputes the slices with Eigen and compares; it throws ReferenceDisagreement and adds
// what it saw to `summary`.
StagedAudit stage_audit(const DeviceTrial& trial, Executor& ex, const AuditBudget& budget, AuditStaging& staging);
void check_audit(const StagedAudit& audit, ReferenceSummary& summary, AuditHostMemory& memory);

// Both parts at once (its own staging).
void audit_reference(const DeviceTrial& trial, Executor& ex, const AuditBudget& budget, ReferenceSummary& summary);

// The positions of a gathered order of `total` elements whose drawn bits the audit checks: every
// one up to kAuditDrawSample, else that many spread evenly over them.
std::vector<std::int64_t> audit_draw_sample(std::int64_t total);

}  // namespace nb
