#pragma once
// The libraries' 16-byte alignment of tensors. On the H100, with every tensor one element past a
// 16-byte boundary (`normbench run --misaligned`), cuDNN's row-norm graphs refused
// (CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER), the pipeline variants on its matmul fusions faulted
// or returned a wrong running mean, and cuBLASLt's chosen algorithm stopped being supported. A baseline asks this
// before it calls the library, and declines the case with the reason.
#include <initializer_list>
#include <utility>

namespace nb {

// Whether a tensor starts on 16 bytes (null counts as aligned: nothing is read there).
bool library_aligned(const void* pointer);

// Throws nb::Unsupported naming the first tensor that does not start on 16 bytes.
void require_library_alignment(const char* library,
                               std::initializer_list<std::pair<const char*, const void*>> tensors);

}  // namespace nb
