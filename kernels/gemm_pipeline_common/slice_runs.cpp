#include "kernels/gemm_pipeline_common/slice_runs.hpp"

namespace nb::linear {

std::vector<ElementRun> whole(std::int64_t elements) { return {{0, elements}}; }

std::vector<ElementRun> stretch_per_slice(const std::vector<std::int64_t>& slices, std::int64_t stride,
                                          std::int64_t length) {
  std::vector<ElementRun> runs;
  runs.reserve(slices.size());
  for (std::int64_t s : slices) runs.push_back({s * stride, length});
  return runs;
}

std::vector<ElementRun> element_per_line(const std::vector<std::int64_t>& slices, std::int64_t lines,
                                         std::int64_t line_stride) {
  std::vector<ElementRun> runs;
  runs.reserve(slices.size() * std::size_t(lines));
  for (std::int64_t line = 0; line < lines; ++line)
    for (std::int64_t s : slices) runs.push_back({line * line_stride + s, 1});
  return runs;
}

}  // namespace nb::linear
