// The gathered order of a slice family's runs, and the host's draw of a declared input at those
// elements: element k of the draw is what the whole tensor's draw holds at source(k), `special`'s
// plants included, whatever order the runs come in.
#include <gtest/gtest.h>

#include <cstring>

#include "harness/stored_value.hpp"
#include "harness/validation/gathered_order.hpp"

namespace nb {
namespace {

TEST(GatheredOrder, MapsGatheredElementsToTheTensorAndBack) {
  const GatheredOrder order({{40, 3}, {0, 2}, {10, 0}, {20, 4}});  // unsorted, one run empty
  ASSERT_EQ(order.size(), 9);
  const std::vector<std::int64_t> sources = {40, 41, 42, 0, 1, 20, 21, 22, 23};
  for (std::int64_t k = 0; k < order.size(); ++k) {
    EXPECT_EQ(order.source(k), sources[std::size_t(k)]) << k;
    EXPECT_EQ(order.position(sources[std::size_t(k)]), k) << k;
  }
  for (std::int64_t outside : {2, 10, 19, 24, 39, 43, 1000}) EXPECT_EQ(order.position(outside), -1) << outside;
  std::vector<std::int64_t> walked;
  order.walk(2, 8, [&](std::int64_t k, std::int64_t index) {
    EXPECT_EQ(index, order.source(k));
    walked.push_back(k);
  });
  EXPECT_EQ(walked, (std::vector<std::int64_t>{2, 3, 4, 5, 6, 7}));
}

TEST(GatheredOrder, OverlappingRunsAreRefused) {
  EXPECT_THROW(GatheredOrder({{0, 5}, {4, 2}}), std::logic_error);
  EXPECT_NO_THROW(GatheredOrder({{0, 5}, {5, 2}}));
}

// Element by element against the whole tensor's host draw (draw_declared), for every distribution
// and a narrow storage, on scattered runs that hold `special`'s plants.
TEST(GatheredOrder, DrawsWhatTheWholeTensorHoldsThere) {
  const std::int64_t n = 1 << 16;
  for (DType storage : {DType::f32, DType::bf16}) {
    for (Distribution d : all_distributions()) {
      const InputDraw draw = InputDraw::of(0, d, 7);
      std::vector<TensorDecl> decls(1);
      decls[0].name = "x", decls[0].elements = n, decls[0].dtype = storage;
      HostTensors whole;
      whole.data = {std::vector<float>(std::size_t(n))};
      draw_declared({draw}, 1234, decls, whole);
      for (float& v : whole.data[0]) v = stored::rounded(v, storage);
      std::vector<ElementRun> runs = {{n - 100, 100}, {0, 1}};
      for (std::int64_t k = 0; k < element_draw::special_count(n); ++k)
        runs.push_back({element_draw::special_position(1234, 7, k, n), 1});
      std::vector<ElementRun> disjoint;
      for (const ElementRun& r : runs) {  // the plants may repeat or fall in the first runs
        bool taken = false;
        for (const ElementRun& t : disjoint) taken |= r.begin < t.begin + t.count && t.begin < r.begin + r.count;
        if (!taken) disjoint.push_back(r);
      }
      const GatheredOrder order(disjoint);
      std::vector<float> drawn(std::size_t(order.size()));
      draw_gathered(draw, 1234, decls[0], order, drawn.data());
      for (std::int64_t k = 0; k < order.size(); ++k) {
        const float want = whole.data[0][std::size_t(order.source(k))];
        EXPECT_EQ(std::memcmp(&drawn[std::size_t(k)], &want, sizeof want), 0)
            << distribution_name(d) << " element " << order.source(k) << ": " << drawn[std::size_t(k)] << " vs " << want;
      }
    }
  }
}

}  // namespace
}  // namespace nb
