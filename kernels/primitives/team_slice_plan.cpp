#include "kernels/primitives/team_slice_plan.hpp"

#include <algorithm>

#include "kernels/primitives/host_math.hpp"

namespace nb {
namespace {

std::string megabytes(double bytes) { return std::to_string(int(bytes / 1e6 + 0.5)) + " MB"; }

}  // namespace

TeamSlicePlan plan_team_slices(std::int64_t runs, std::int64_t sets, std::int64_t run_length, int resident_ctas,
                               std::int64_t slice_floats, bool aligned16, const std::string& what) {
  TeamSlicePlan p;
  p.vec = aligned16 && run_length % 4 == 0 ? 4 : 1;
  p.mv = runs * run_length / p.vec;
  const std::int64_t cap = slice_floats / p.vec;
  const int max_team = std::min(resident_ctas, kMaxTeamCtas);
  const std::int64_t min_team = cap > 0 ? ceil_div(p.mv, cap) : max_team + 1LL;
  if (max_team < 1 || min_team > max_team) {
    p.refusal = "a " + what + " of " + megabytes(4.0 * runs * run_length) + " exceeds the shared memory of " +
                std::to_string(std::max(max_team, 0)) + " CTAs, the most a team has here (" +
                megabytes(4.0 * double(cap) * p.vec * std::max(max_team, 0)) + "): x would be read twice";
    return p;
  }
  std::int64_t best = -1;
  for (std::int64_t g = 1; g <= std::min<std::int64_t>(sets, resident_ctas / min_team); ++g) {
    const std::int64_t team = std::min<std::int64_t>({resident_ctas / g, max_team, p.mv});
    const std::int64_t slice = ceil_div(p.mv, team), waves = ceil_div(sets, g);
    const std::int64_t cost = waves * (slice * p.vec * 4 + kWaveOverheadBytes);
    if (best >= 0 && cost > best) continue;
    best = cost;
    p.team = int(team);
    p.teams = int(g);
    p.slice = slice;
    p.waves = waves;
  }
  return p;
}

}  // namespace nb
