#pragma once
// The staged layout's 2-byte rows with each row's cluster round overlapped (overlapped_rows.cu): what
// 5_register_row.cu launches for them where it fits, before staged_rows.cu's form.
#include <cuda_runtime.h>

#include "kernels/rows/layernorm_rows/row_math.cuh"
#include "kernels/rows/row_geometry.cuh"
#include "kernels/rows/row_plan.hpp"

namespace nb::layernorm_rows {

// Clusters of the overlapped rows that can be resident at once for a staged plan with storage T;
// 0 where the plan does not fit them: storage of 4 bytes (fp32 takes two rounds a row), one block a
// row, slices past 32 KB, or no cluster resident.
template <class T>
int resident_overlapped_clusters(const rows::RowPlan& plan);

// Launches min(rows, resident clusters) clusters of the overlapped rows on `stream` and returns
// true, or returns false (nothing launched) where resident_overlapped_clusters is 0.
template <class T>
bool launch_overlapped_rows(const rows::RowPlan& plan, const rows::RowGeometry& g, const RowTensors<T>& t,
                            cudaStream_t stream);

}  // namespace nb::layernorm_rows
