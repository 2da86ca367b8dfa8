#pragma once
// layernorm_rows: y[i,j] = (x[i,j] - mean_i) * rstd_i * w[j] + b[j] for x of shape (M, N),
// contiguous (the LLM layout), with mean_i and rstd_i = 1 / sqrt(var_i + eps) (biased variance)
// over row i's N values. mean and rstd are outputs in fp32, as PyTorch's native_layer_norm saves
// them for the backward; x, w, b and y are stored in the problem's type (fp32, bf16 or fp16).
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/problem.hpp"
#include "harness/variant.hpp"
#include "kernels/rows/row_shape.hpp"

namespace nb::layernorm_rows {

enum Tensor : int { X, W, B, Y, MEAN, RSTD };

using Shape = rows::RowShape;

// The variant table (variants.cpp).

std::vector<std::unique_ptr<Variant>> make_variants();

}  // namespace nb::layernorm_rows
