#pragma once
// Min over dim 1 (keepdim) of a row-major (B,C) tensor, NaN-propagating like torch.min.
#include <cstdint>

namespace nb::cpu {

void min_dim1_reference(std::int64_t b, std::int64_t c, const float* x, double* y);

}  // namespace nb::cpu
