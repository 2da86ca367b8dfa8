#pragma once
// How the team-slice pipeline (team_slices.cuh; batchnorm_train onchip_groups) cuts its statistics
// sets over a persistent grid: a team of CTAs per set, each CTA holding one slice of the set in
// shared memory, `teams` sets in flight at once, ceil(sets / teams) waves. A set is `runs` runs of
// `run_length` contiguous floats (a BatchNorm channel: N runs of H*W). Host code, so the unit
// tests can check the plan of every shape without a GPU.
#include <cstdint>
#include <string>

namespace nb {

// What one wave costs beyond its bytes (the slice statistics and the merge), counted as bytes of
// a slice: it breaks near-ties toward fewer waves.
inline constexpr std::int64_t kWaveOverheadBytes = 4096;

// The most CTAs a team may have: the pipeline's warp 0 merges the team's partials, five a lane.
inline constexpr int kMaxTeamCtas = 5 * 32;

struct TeamSlicePlan {
  int vec = 1;               // floats per vector: 4 (16-byte copies) when run_length % 4 == 0 and the tensors are aligned16, else 1
  std::int64_t mv = 0;       // vectors per set: runs * run_length / vec
  int team = 0;              // CTAs per set
  int teams = 0;             // sets in flight, one team each
  std::int64_t slice = 0;    // most vectors one CTA holds: ceil(mv / team)
  std::int64_t waves = 0;    // ceil(sets / teams)
  std::string refusal;       // non-empty: the shape does not suit the team-slice kernels, and why

  bool ok() const { return refusal.empty(); }
  int ctas() const { return team * teams; }
};

// resident_ctas: CTAs the device keeps co-resident (a team takes at most kMaxTeamCtas of them);
// slice_floats: the floats one CTA's slice buffer holds; what: the set's name in a refusal ("channel"). Among the set counts per
// wave that fit, takes the one whose busiest CTA moves the fewest bytes (waves x (slice +
// overhead)), the larger count on ties. aligned16: the tensors start on 16 bytes (else single
// floats: --misaligned tensors).
TeamSlicePlan plan_team_slices(std::int64_t runs, std::int64_t sets, std::int64_t run_length, int resident_ctas,
                               std::int64_t slice_floats, bool aligned16, const std::string& what);

}  // namespace nb
