#pragma once
// The gathered order of a list of runs (harness/slices.hpp): the runs' elements one
// after another, and where each sits in the full tensor; and a declared draw's values at those
// elements, drawn on the host bit for bit as the device drew them, so that the audit's drawn
// inputs need not leave the device (docs/validation.md).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "harness/input_draw.hpp"
#include "harness/slices.hpp"

namespace nb {

class GatheredOrder {
 public:
  // Throws std::logic_error when two runs share an element (a slice family's runs never do).
  explicit GatheredOrder(std::vector<ElementRun> runs);

  std::int64_t size() const { return offsets_.back(); }
  // Where gathered element k sits in the full tensor.
  std::int64_t source(std::int64_t k) const;
  // The gathered position of the full tensor's element `index`; -1 when no run holds it.
  std::int64_t position(std::int64_t index) const;

  // f(k, source(k)) for k in [k0, k1), in order.
  template <class F>
  void walk(std::int64_t k0, std::int64_t k1, F f) const {
    if (k0 >= k1) return;
    std::size_t r = run_of(k0);
    std::int64_t k = k0;
    while (k < k1) {
      const ElementRun& run = runs_[r];
      const std::int64_t end = std::min(k1, offsets_[r + 1]);
      for (std::int64_t index = run.begin + (k - offsets_[r]); k < end; ++k, ++index) f(k, index);
      ++r;
    }
  }

 private:
  std::size_t run_of(std::int64_t k) const;  // the run holding gathered element k

  std::vector<ElementRun> runs_;
  std::vector<std::int64_t> offsets_;  // the first gathered element of each run, then the total
  std::vector<std::size_t> by_begin_;  // the runs in ascending order of their first element
};

// The gathered elements of the tensor `draw` fills (`decl` is that tensor), as its storage holds
// them, `special`'s plants included: element k of `out` (order.size() values) is element
// order.source(k) of the device's tensor. On every core.
void draw_gathered(const InputDraw& draw, std::uint64_t seed, const TensorDecl& decl, const GatheredOrder& order,
                   float* out);

}  // namespace nb
