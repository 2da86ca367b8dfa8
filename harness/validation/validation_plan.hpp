#pragma once
// Which distributions and how many fresh trials a problem is validated on, and where its float64
// reference is computed (docs/validation.md). A problem whose reference runs on the device gets
// every distribution at every size. One validated on the host (no reference program, a device
// reference that does not fit, or `--reference host`) gets every distribution up to
// `full_validation_elements` and uniform01 beyond, whose Eigen references take seconds. Problems
// above `huge_problem_elements` (GBs per tensor) run at most `huge_problem_trials` trials. A variant
// whose validated launch in a distribution's first trial took longer than `slow_launch_ms` (a naive
// kernel: tens of milliseconds to seconds), and every naive kernel of normbench's own, gets that
// trial alone of the distribution; the others get every trial (trials_for).
#include <cstdint>
#include <string>
#include <vector>

#include "harness/distribution.hpp"
#include "harness/tensors.hpp"
#include "harness/validation/reference_audit.hpp"

namespace nb {

// Where references are computed: on the device wherever the op has a reference program and it
// fits (audited by Eigen), or on the host for every problem (Eigen throughout: slow, the old way).
enum class ReferencePlace { device, host };

struct ValidationOptions {
  int trials = 3;
  std::int64_t full_validation_elements = std::int64_t(1) << 25;  // 32M elements over all tensors
  std::int64_t huge_problem_elements = std::int64_t(1) << 29;      // 512M elements (2 GiB of fp32)
  int huge_problem_trials = 3;
  double slow_launch_ms = 50;  // --slow-launch-ms
  ReferencePlace reference = ReferencePlace::device;
  AuditBudget audit;
  std::vector<Distribution> distributions;                        // explicit choice; empty: the rule above
  std::uint64_t base_seed = 1000;
  // Every trial in newly allocated buffers (new addresses, new contents): a candidate that
  // caches results by pointer or by call count cannot replay an earlier trial's outputs.
  bool fresh_buffers_per_trial = false;
  // A case that misses its bound on a stress distribution it does not claim fails (--strict),
  // instead of standing marked fragile.
  bool strict = false;
};

struct ValidationPlan {
  std::vector<Distribution> distributions;
  int trials = 3;
  std::uint64_t base_seed = 1000;
  bool fresh_buffers_per_trial = false;
  bool strict = false;            // ValidationOptions::strict
  bool device_reference = false;  // else the host's
  std::string why_host;           // why the host's, when it is
  AuditBudget audit;
  double slow_launch_ms = 50;

  // The trials of a distribution a variant gets, given its validated launch in the distribution's
  // first trial: all of them, or that first one alone for a launch over slow_launch_ms or for one of
  // normbench's own naive kernels (`own_naive`: kind naive, not a candidate), however long its
  // launch. It is still validated on every distribution; the trials are shared, and such a variant
  // skips the later ones (docs/validation.md says why one trial is enough for them).
  int trials_for(double first_launch_ms, bool own_naive = false) const {
    return own_naive || first_launch_ms > slow_launch_ms ? 1 : trials;
  }

  // Seed of trial t of distribution index d: distinct for every (d, t) of a run.
  std::uint64_t seed(std::size_t d, int t) const { return base_seed + 100 * d + static_cast<std::uint64_t>(t); }
};

// Throws UsageError for options no plan can follow (fewer than one trial). The CLI calls it
// before touching the device; plan_validation calls it too.
void check_validation_options(const ValidationOptions& options);

// `why_host` is "" when the problem's reference runs on the device, else why it cannot.
ValidationPlan plan_validation(const std::vector<TensorDecl>& decls, const ValidationOptions& options,
                               const std::string& why_host);

}  // namespace nb
