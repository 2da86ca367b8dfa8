// The Hopper GEMM's tile orders (kernels/gemm/sm90/tile_order.hpp): every tile exactly once for
// any tile count, and the grouped order's waves spanning few row and column strips.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "kernels/gemm/sm90/tile_order.hpp"

namespace nb::gemm::sm90 {
namespace {

template <TileOrder kOrder>
void expect_every_tile_once(int m_tiles, int n_tiles) {
  std::vector<int> seen(std::size_t(m_tiles) * n_tiles, 0);
  for (int id = 0; id < m_tiles * n_tiles; ++id) {
    const TileCoord t = tile_at<kOrder>(id, m_tiles, n_tiles);
    ASSERT_TRUE(t.m >= 0 && t.m < m_tiles && t.n >= 0 && t.n < n_tiles)
        << "place " << id << " of " << m_tiles << " x " << n_tiles << " -> (" << t.m << ", " << t.n << ")";
    ++seen[std::size_t(t.n) * m_tiles + t.m];
  }
  for (std::size_t i = 0; i < seen.size(); ++i)
    ASSERT_EQ(seen[i], 1) << "tile " << i << " of " << m_tiles << " x " << n_tiles;
}

TEST(TileOrder, EveryTileExactlyOnce) {
  for (int m_tiles : {1, 2, 7, 15, 16, 17, 31, 32, 33, 128, 129})
    for (int n_tiles : {1, 2, 3, 16, 17, 32}) {
      SCOPED_TRACE(testing::Message() << m_tiles << " x " << n_tiles);
      expect_every_tile_once<TileOrder::m_fastest>(m_tiles, n_tiles);
      expect_every_tile_once<TileOrder::grouped>(m_tiles, n_tiles);
    }
}

TEST(TileOrder, FewerThanAGroupOfRowsKeepsLaunchOrder) {
  // 1024 x 8192 in 128 x 256 tiles: 8 M tiles, fewer than a group, so both orders agree.
  for (int id = 0; id < 8 * 32; ++id) {
    const TileCoord a = tile_at<TileOrder::m_fastest>(id, 8, 32), b = tile_at<TileOrder::grouped>(id, 8, 32);
    EXPECT_EQ(a.m, b.m);
    EXPECT_EQ(a.n, b.n);
  }
}

// The row and column strips the first `wave` places read, for 16384 x 4096 in 128 x 256 tiles.
template <TileOrder kOrder>
std::pair<std::size_t, std::size_t> strips_of_first_wave(int wave) {
  std::set<int> rows, cols;
  for (int id = 0; id < wave; ++id) {
    const TileCoord t = tile_at<kOrder>(id, 128, 16);
    rows.insert(t.m);
    cols.insert(t.n);
  }
  return {rows.size(), cols.size()};
}

TEST(TileOrder, GroupedWaveReadsFewStrips) {
  EXPECT_EQ(strips_of_first_wave<TileOrder::m_fastest>(132), std::make_pair(std::size_t(128), std::size_t(2)));
  EXPECT_EQ(strips_of_first_wave<TileOrder::grouped>(132), std::make_pair(std::size_t(16), std::size_t(9)));
}

}  // namespace
}  // namespace nb::gemm::sm90
