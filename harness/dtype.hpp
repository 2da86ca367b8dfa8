#pragma once
// Element types and precisions a problem can be stated in. Host copies always hold float values
// that the tensor's storage type represents exactly; only the device buffers use the narrow type.
// tf32 is fp32 storage whose products may run on tensor cores in TF32 (10-bit mantissa) with fp32
// accumulation; fp32 promises IEEE fp32 products and sums throughout. bf16 and fp16 are storage
// types: a bf16 problem keeps its activations and weights in bf16, its statistics (mean, rstd) in
// fp32, and computes in fp32, as PyTorch does.
#include <cstddef>
#include <string>

namespace nb {

enum class DType { f32, tf32, bf16, f16 };

std::string dtype_name(DType t);                 // "fp32", "tf32", "bf16", "fp16"
DType parse_dtype(const std::string& name);      // throws UsageError
std::size_t dtype_size(DType t);                 // bytes of one stored element

// The type a problem's activations are stored in: tf32 stores fp32, the others store themselves.
DType storage_type(DType t);
bool is_narrow(DType t);                         // bf16 or fp16: 2-byte storage

// The unit roundoff of the storage type (half an ulp at 1): fp32 2^-24, bf16 2^-8, fp16 2^-11.
double unit_roundoff(DType storage);

}  // namespace nb
