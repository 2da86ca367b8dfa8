#pragma once
// The GPU's theoretical dense arithmetic peak at a precision, from an architecture table
// (FLOPs per clock per SM) times the SM count times the maximum SM clock: the compute-bound
// twin of GpuInfo::theoretical_peak_gbps, used to flag a GEMM timing that beats physics.
#include <string>

#include "harness/device/gpu_info.hpp"
#include "harness/dtype.hpp"

namespace nb {

// Dense FLOPs per clock per SM (an FMA counts 2) for compute capability "9.0" etc. at a
// precision: fp32 on the FMA units, tf32 on the tensor cores. 0 for an architecture the table
// does not know (then no check is made).
double flops_per_clock_per_sm(const std::string& compute_capability, DType dtype);

// flops_per_clock_per_sm x SMs x maximum SM clock, in TFLOP/s; 0 when unknown.
double compute_peak_tflops(const GpuInfo& gpu, DType dtype);

}  // namespace nb
