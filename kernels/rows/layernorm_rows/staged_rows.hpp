#pragma once
// The staged layout of 5_register_row.cu (rows::RowLayout::staged): rows of 16-byte packs
// longer than a block's registers hold, in shared-memory slices over a persistent grid of clusters.
#include <cuda_runtime.h>

#include "kernels/rows/layernorm_rows/row_math.cuh"
#include "kernels/rows/row_geometry.cuh"
#include "kernels/rows/row_plan.hpp"

namespace nb::layernorm_rows {

// Clusters of a staged plan that can be resident at once with storage T (float, __nv_bfloat16,
// __half); 0 when none can.
template <class T>
int resident_staged_clusters(const rows::RowPlan& plan);

// Launches min(rows, resident clusters) clusters on `stream`; needs resident_staged_clusters >= 1.
// next_row: dev::kRowCounterBytes of device memory for the counter that hands out rows (zeroed here).
template <class T>
void launch_staged_rows(const rows::RowPlan& plan, const rows::RowGeometry& g, const RowTensors<T>& t,
                        unsigned long long* next_row, cudaStream_t stream);

}  // namespace nb::layernorm_rows
