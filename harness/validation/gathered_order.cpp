#include "harness/validation/gathered_order.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/parallel.hpp"
#include "harness/stored_value.hpp"

namespace nb {

GatheredOrder::GatheredOrder(std::vector<ElementRun> runs) : runs_(std::move(runs)) {
  offsets_.reserve(runs_.size() + 1);
  offsets_.push_back(0);
  for (const ElementRun& r : runs_) offsets_.push_back(offsets_.back() + r.count);
  by_begin_.resize(runs_.size());
  std::iota(by_begin_.begin(), by_begin_.end(), std::size_t(0));
  if (!std::is_sorted(runs_.begin(), runs_.end(), [](const ElementRun& a, const ElementRun& b) { return a.begin < b.begin; }))
    std::sort(by_begin_.begin(), by_begin_.end(), [&](std::size_t a, std::size_t b) { return runs_[a].begin < runs_[b].begin; });
  for (std::size_t j = 1; j < by_begin_.size(); ++j) {
    const ElementRun &before = runs_[by_begin_[j - 1]], &after = runs_[by_begin_[j]];
    if (before.count > 0 && before.begin + before.count > after.begin)
      throw std::logic_error("gathered runs overlap at element " + std::to_string(after.begin));
  }
}

std::size_t GatheredOrder::run_of(std::int64_t k) const {
  return std::size_t(std::upper_bound(offsets_.begin(), offsets_.end() - 1, k) - offsets_.begin() - 1);
}

std::int64_t GatheredOrder::source(std::int64_t k) const {
  const std::size_t r = run_of(k);
  return runs_[r].begin + (k - offsets_[r]);
}

std::int64_t GatheredOrder::position(std::int64_t index) const {
  // The last run (in element order) that starts at or before `index`.
  const auto it = std::upper_bound(by_begin_.begin(), by_begin_.end(), index,
                                   [&](std::int64_t i, std::size_t r) { return i < runs_[r].begin; });
  if (it == by_begin_.begin()) return -1;
  const std::size_t r = *(it - 1);
  if (index >= runs_[r].begin + runs_[r].count) return -1;
  return offsets_[r] + (index - runs_[r].begin);
}

void draw_gathered(const InputDraw& draw, std::uint64_t seed, const TensorDecl& decl, const GatheredOrder& order,
                   float* out) {
  const DType storage = decl.dtype;
  parallel_for(order.size(), [&](std::int64_t k0, std::int64_t k1) {
    order.walk(k0, k1, [&](std::int64_t k, std::int64_t index) {
      out[k] = stored::rounded(draw.value(seed, static_cast<std::uint64_t>(index), storage), storage);
    });
  });
  if (!draw.plants_specials()) return;
  // In plant order: a later plant at the same place overwrites an earlier one, as on the device.
  for (std::int64_t k = 0; k < element_draw::special_count(decl.elements); ++k) {
    const std::int64_t at = order.position(element_draw::special_position(seed, draw.salt, k, decl.elements));
    if (at >= 0) out[at] = stored::rounded(element_draw::special_value(k), storage);
  }
}

}  // namespace nb
