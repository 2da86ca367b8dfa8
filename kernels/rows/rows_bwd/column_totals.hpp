#pragma once
// The second phase of the split column sums (2_warp.cu, 3_fused.cu): `bands` partial rows of fp32
// column sums, [bands][n] per sum, added in band order and written in the storage type. No
// atomics: the same partials give the same bits on every launch.
#include <cuda_runtime.h>

#include "harness/dtype.hpp"

namespace nb::rows_bwd {

// sums: 1 (dw) or 2 (dw then db); partials holds them one after the other, bands * n floats each;
// out[k] receives sum k (n elements of storage_type(storage)).
void launch_column_totals(DType storage, const float* partials, long long bands, long long n, int sums,
                          void* const out[2], cudaStream_t stream);

}  // namespace nb::rows_bwd
