#pragma once
// rmsnorm_rows: y[i,j] = x[i,j] / sqrt(mean_j x[i,j]^2 + eps) * w[j] for x of shape (M, N),
// contiguous: the LLM layout, each row reduced over its N contiguous elements. x, w and y are
// stored in the problem's type (fp32, bf16 or fp16); the kernels compute in fp32.
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/problem.hpp"
#include "harness/variant.hpp"
#include "kernels/rows/row_shape.hpp"

namespace nb::rmsnorm_rows {

enum Tensor : int { X, W, Y };

using Shape = rows::RowShape;

// The variant table (variants.cpp).

std::vector<std::unique_ptr<Variant>> make_variants();

}  // namespace nb::rmsnorm_rows
