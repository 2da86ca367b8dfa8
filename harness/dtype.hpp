#pragma once
// Element types a problem can be stated in. Host copies always hold float values that the
// device type represents exactly; only the device buffers use the narrow type.
#include <cstddef>
#include <string>

namespace nb {

enum class DType { f32 };

std::string dtype_name(DType t);                 // "fp32"
DType parse_dtype(const std::string& name);      // throws UsageError
std::size_t dtype_size(DType t);

}  // namespace nb
