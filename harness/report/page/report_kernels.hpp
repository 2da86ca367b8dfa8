#pragma once
// A row's `launches` on a report page: the kernels its one untimed recorded launch put on the GPU
// (name, count, grid x block, cluster, registers, shared memory, microseconds), what a reader
// would otherwise open Nsight Compute for, folded into a line until opened; or why none were
// recorded.
#include <nlohmann/json.hpp>

#include <string>

namespace nb {

// "3 kernels: partials_rows, finalize, normalize_rows", opening onto a table of one line a
// kernel; "kernels not recorded" with the reason as its tooltip; "" for a row without a record
// (a case that did not run, a report before minor 12).
std::string kernels_details(const nlohmann::json& row);

}  // namespace nb
