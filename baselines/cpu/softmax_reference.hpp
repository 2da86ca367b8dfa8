#pragma once
// Float64 softmax over each row of a row-major (M,N) tensor. Subtracts the row max (in double)
// for stability. A NaN or +Inf in a row makes that row NaN (and only that row), as IEEE does.
#include <cstdint>

namespace nb::cpu {

void softmax_reference(std::int64_t m, std::int64_t n, const float* x, double* y);

}  // namespace nb::cpu
