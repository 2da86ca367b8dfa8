#pragma once
// TMA descriptors for the Hopper GEMM's operands: a row-major (rows, k) matrix of fp32 or bf16
// read in boxes of box_rows x 128 bytes (32 floats, 64 bf16) with the 128-byte swizzle the wgmma
// descriptors expect; rows and k beyond the matrix read as zeros. Encoded on the host by the
// driver's cuTensorMapEncodeTiled, reached through the runtime (no link to libcuda, so CPU-only
// hosts still run normbench).
#include <cuda.h>

namespace nb::gemm::sm90 {

enum class TmaElement { f32, bf16 };

inline constexpr int kSwizzleBytes = 128;  // one swizzle row: the K depth of a stage, in bytes
constexpr int element_bytes(TmaElement e) { return e == TmaElement::f32 ? 4 : 2; }
constexpr int box_k(TmaElement e) { return kSwizzleBytes / element_bytes(e); }  // elements

// Needs k * element bytes % 16 == 0 and `data` 16-byte aligned (TMA's stride and address rules);
// throws std::runtime_error naming the driver's error otherwise. A map depends on nothing but
// these five, so the last few are kept and handed out again: a timing loop encodes its operands'
// maps once, not at every launch (a few microseconds each, seen by the timer of a small GEMM).
CUtensorMap k_major_tensor_map(const void* data, TmaElement element, int rows, int k, int box_rows);

}  // namespace nb::gemm::sm90
