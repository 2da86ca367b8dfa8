#pragma once
// The top of a report page: what produced the numbers (GPU, clocks, driver and library
// versions, commit, command, date) and the measured copy ceiling against the theoretical peak.
#include <nlohmann/json.hpp>

#include <string>

namespace nb {

std::string render_provenance_html(const nlohmann::json& report);

// The measured copy ceiling against the theoretical peak; with compute_ceilings[], also the GEMM
// ceilings table (problem, kernel, median, TFLOP/s, % of the compute peak of its dtype).
std::string render_ceilings_html(const nlohmann::json& report);

// "NVIDIA H100 80GB HBM3", or "unknown GPU" when the report does not say.
std::string gpu_name_of(const nlohmann::json& report);

}  // namespace nb
