#pragma once
// Which distributions and how many fresh trials a problem is validated on. Every distribution
// runs on problems up to `full_validation_elements` (all of the quick suite); larger problems,
// whose host references take seconds, validate uniform01 only, still with fresh seeds per trial.
// Problems above `huge_problem_elements` (GBs per tensor) run `huge_problem_trials` full-size
// trials, so that the default suite stays within minutes (docs/validation.md).
#include <cstdint>
#include <vector>

#include "harness/distribution.hpp"
#include "harness/tensors.hpp"

namespace nb {

struct ValidationOptions {
  int trials = 3;
  std::int64_t full_validation_elements = std::int64_t(1) << 25;  // 32M elements over all tensors
  std::int64_t huge_problem_elements = std::int64_t(1) << 29;      // 512M elements (2 GiB of fp32)
  int huge_problem_trials = 1;
  std::vector<Distribution> distributions;                        // explicit choice; empty: the rule above
  std::uint64_t base_seed = 1000;
  // Every trial in newly allocated buffers (new addresses, new contents): a candidate that
  // caches results by pointer or by call count cannot replay an earlier trial's outputs.
  bool fresh_buffers_per_trial = false;
};

struct ValidationPlan {
  std::vector<Distribution> distributions;
  int trials = 3;
  std::uint64_t base_seed = 1000;
  bool fresh_buffers_per_trial = false;

  // Seed of trial t of distribution index d: distinct for every (d, t) of a run.
  std::uint64_t seed(std::size_t d, int t) const { return base_seed + 100 * d + static_cast<std::uint64_t>(t); }
};

// Throws UsageError for options no plan can follow (fewer than one trial). The CLI calls it
// before touching the device; plan_validation calls it too.
void check_validation_options(const ValidationOptions& options);

ValidationPlan plan_validation(const std::vector<TensorDecl>& decls, const ValidationOptions& options);

}  // namespace nb
