#pragma once
// A row's `launches` on a report page: the kernels its one untimed recorded launch put on the GPU
// (name, count, grid x block, cluster, registers, shared memory, microseconds), what a reader
// would otherwise open Nsight Compute for, folded into a line until opened; or why none were
// recorded.
#include <nlohmann/json.hpp>

#include "harness/report/html_table.hpp"

namespace nb {

// The row's kernels cell, sorted by the number of kernels launched.
HtmlCell kernels_cell(const nlohmann::json& row);

}  // namespace nb
