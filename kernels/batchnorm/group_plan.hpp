#pragma once
// How the on-chip BatchNorm kernels (batchnorm_train 6_onchip_groups.cu) cut the channels over a
// persistent grid: a team of CTAs per channel, each CTA holding one slice of the channel's
// N*H*W values in shared memory, `teams` channels in flight at once, ceil(C / teams) waves.
// Host code, so the unit tests can check the plan of every shape without a GPU.
#include <cstdint>
#include <string>

namespace nb::bn {

// What one wave costs beyond its bytes (the merge, the part of the team barrier the next slice's
// copy does not hide), counted as bytes of a slice: it breaks near-ties toward fewer waves.
inline constexpr std::int64_t kWaveOverheadBytes = 4096;

struct ChannelGroupPlan {
  int vec = 1;               // floats per vector: 4 (16-byte copies) when H*W % 4 == 0 and x, y are aligned16, else 1
  std::int64_t mv = 0;       // vectors per channel: N*H*W / vec
  int team = 0;              // CTAs per channel
  int teams = 0;             // channels in flight, one team each
  std::int64_t slice = 0;    // most vectors one CTA holds: ceil(mv / team)
  std::int64_t waves = 0;    // ceil(C / teams)
  std::string refusal;       // non-empty: the shape does not suit the on-chip kernels, and why

  bool ok() const { return refusal.empty(); }
  int ctas() const { return team * teams; }
};

// resident_ctas: CTAs the device keeps co-resident; slice_floats: the floats one CTA's slice
// buffer holds. Among the channel counts per wave that fit, takes the one whose busiest CTA
// moves the fewest bytes (waves x (slice + overhead)), the larger count on ties. aligned16: x and y
// start on 16 bytes (else single floats: --misaligned tensors).
ChannelGroupPlan plan_channel_groups(std::int64_t n, std::int64_t c, std::int64_t hw, int resident_ctas,
                                     std::int64_t slice_floats, bool aligned16);

}  // namespace nb::bn
