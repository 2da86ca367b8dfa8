#pragma once
// Element types and precisions a problem can be stated in. Host copies always hold float values
// that the device type represents exactly; only the device buffers use the narrow type. tf32 is
// fp32 storage whose products may run on tensor cores in TF32 (10-bit mantissa) with fp32
// accumulation; fp32 promises IEEE fp32 products and sums throughout.
#include <cstddef>
#include <string>

namespace nb {

enum class DType { f32, tf32 };

std::string dtype_name(DType t);                 // "fp32", "tf32"
DType parse_dtype(const std::string& name);      // throws UsageError
std::size_t dtype_size(DType t);

}  // namespace nb
