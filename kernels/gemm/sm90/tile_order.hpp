#pragma once
// Which output tile the CTA at a place in launch order computes. CTAs start roughly in launch
// order, so the tiles in flight together are consecutive places: `m_fastest` gives a wave every
// M tile of one or two N columns (at 16384 x 4096 x 4096 each wave streams all of A, 256 MB, from
// DRAM); `grouped` walks M in groups of kGroupM tiles, every N tile of a group before the next, so
// a wave of 132 tiles reads 16 row strips of A and about 8 column strips of B.
#include "harness/host_device.hpp"

namespace nb::gemm::sm90 {

enum class TileOrder { m_fastest, grouped };

struct TileCoord {
  int m, n;  // tile indices: rows m * BM.., columns n * BN..
};

inline constexpr int kGroupM = 16;

// Place `id` in [0, m_tiles * n_tiles) to its tile; a bijection for every tile count.
template <TileOrder kOrder>
NB_HD inline TileCoord tile_at(int id, int m_tiles, int n_tiles) {
  if constexpr (kOrder == TileOrder::m_fastest) {
    return {id % m_tiles, id / m_tiles};
  } else {
    const int group = id / (kGroupM * n_tiles);
    const int first_m = group * kGroupM;
    const int group_m = m_tiles - first_m < kGroupM ? m_tiles - first_m : kGroupM;  // the last may be short
    const int within = id - group * kGroupM * n_tiles;
    return {first_m + within % group_m, within / group_m};
  }
}

}  // namespace nb::gemm::sm90
