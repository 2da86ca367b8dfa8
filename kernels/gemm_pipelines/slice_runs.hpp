#pragma once
// The element runs of the GEMM pipelines' slice families (harness/slices.hpp): a slice
// is a row of the batch (GroupNorm's rows, the softmax's rows) or an output column (BatchNorm's
// columns), and each tensor lies over it whole, as one stretch, or as one element per line.
#include <cstdint>
#include <vector>

#include "harness/slices.hpp"

namespace nb::linear {

// The whole tensor: what every slice shares (W for rows, x for columns).
std::vector<ElementRun> whole(std::int64_t elements);

// For each slice s, `length` elements from s * stride: a row of x (stride = length = K), a row of
// W, or one element of a per-column vector (stride = length = 1).
std::vector<ElementRun> stretch_per_slice(const std::vector<std::int64_t>& slices, std::int64_t stride,
                                          std::int64_t length);

// One element per slice in each of `lines` lines `line_stride` apart, line after line, the slices
// in order within a line: columns c of a row-major (M, N) matrix (lines M, stride N), or rows r of
// an (N, M) one (lines N, stride M).
std::vector<ElementRun> element_per_line(const std::vector<std::int64_t>& slices, std::int64_t lines,
                                         std::int64_t line_stride);

// The rows of the batch (M = p's "m") as slices: tensor t with row_width[t] > 0 lies as one row of
// that many elements per batch row (x, a (M, N) output), every other tensor is whole in each slice
// problem (W, the per-column vectors). `checked` and `given` as in SliceFamily.
SliceFamily batch_rows(const OpSpec& op, const Problem& p, std::vector<std::int64_t> row_width, std::vector<int> checked,
                       std::vector<int> given);

}  // namespace nb::linear
