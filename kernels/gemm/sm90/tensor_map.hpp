#pragma once
// TMA descriptors for the Hopper GEMM's operands: a row-major (rows, k) fp32 matrix read in boxes
// of box_rows x 32 floats with the 128-byte swizzle the wgmma descriptors expect; rows and k
// beyond the matrix read as zeros. Encoded on the host by the driver's cuTensorMapEncodeTiled,
// reached through the runtime (no link to libcuda, so CPU-only hosts still run normbench).
#include <cuda.h>

namespace nb::gemm::sm90 {

inline constexpr int kBoxK = 32;  // floats: one 128-byte swizzle row

// Needs k % 4 == 0 and `data` 16-byte aligned (TMA's stride and address rules); throws
// std::runtime_error naming the driver's error otherwise. A map depends on nothing but these four,
// so the last few are kept and handed out again: a timing loop encodes its operands' maps once,
// not at every launch (a few microseconds each, seen by the timer of a small GEMM).
CUtensorMap k_major_tensor_map(const float* data, int rows, int k, int box_rows);

}  // namespace nb::gemm::sm90
