#include "harness/dtype.hpp"

#include "harness/errors.hpp"

namespace nb {

std::string dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "fp32";
    case DType::tf32: return "tf32";
  }
  return "?";
}

DType parse_dtype(const std::string& name) {
  if (name == "fp32" || name == "f32" || name == "float32") return DType::f32;
  if (name == "tf32") return DType::tf32;
  throw UsageError("unknown dtype '" + name + "' (supported: fp32, tf32)");
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::tf32: return 4;
  }
  return 0;
}

}  // namespace nb
