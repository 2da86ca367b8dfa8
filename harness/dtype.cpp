#include "harness/dtype.hpp"

#include "harness/errors.hpp"

namespace nb {

std::string dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::bf16: return "bf16";
    case DType::f16: return "fp16";
  }
  return "?";
}

DType parse_dtype(const std::string& name) {
  if (name == "fp32" || name == "f32" || name == "float32") return DType::f32;
  if (name == "tf32") return DType::tf32;
  if (name == "bf16" || name == "bfloat16") return DType::bf16;
  if (name == "fp16" || name == "f16" || name == "float16" || name == "half") return DType::f16;
  throw UsageError("unknown dtype '" + name + "' (supported: fp32, tf32, bf16, fp16)");
}

std::size_t dtype_size(DType t) { return is_narrow(t) ? 2 : 4; }

DType storage_type(DType t) { return t == DType::tf32 ? DType::f32 : t; }

bool is_narrow(DType t) { return t == DType::bf16 || t == DType::f16; }

double unit_roundoff(DType storage) {
  switch (storage) {
    case DType::bf16: return 0x1.0p-8;
    case DType::f16: return 0x1.0p-11;
    case DType::f32:
    case DType::tf32: return 0x1.0p-24;
  }
  return 0x1.0p-24;
}

}  // namespace nb
