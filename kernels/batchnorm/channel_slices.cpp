#include "kernels/batchnorm/channel_slices.hpp"

#include "kernels/batchnorm/shape.hpp"

namespace nb::bn {

SliceFamily channel_slices(const OpSpec& op, const Problem& p, const std::vector<bool>& per_element,
                           std::vector<int> checked) {
  const Shape s = shape_of(p);
  SliceFamily f;
  f.unit = "channel";
  f.count = s.c;
  f.problem = problem_with_slices(op, p, "c");
  f.runs = [s, per_element](int tensor, const std::vector<std::int64_t>& slices) {
    std::vector<ElementRun> runs;
    if (!per_element.at(std::size_t(tensor))) {
      for (std::int64_t c : slices) runs.push_back({c, 1});
      return runs;
    }
    for (std::int64_t n = 0; n < s.n; ++n)
      for (std::int64_t c : slices) runs.push_back({(n * s.c + c) * s.hw, s.hw});
    return runs;
  };
  f.slice_of = [s, per_element](int tensor, std::int64_t element) {
    return per_element.at(std::size_t(tensor)) ? element / s.hw % s.c : element;
  };
  f.checked = std::move(checked);
  return f;
}

}  // namespace nb::bn
