#include "kernels/gemm/sm90/tensor_map.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>

namespace nb::gemm::sm90 {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t e =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &entry, cudaEnableDefault, &found);
#endif
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || entry == nullptr)
      throw std::runtime_error(std::string("the driver has no cuTensorMapEncodeTiled: ") + cudaGetErrorString(e));
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return fn;
}

CUtensorMap encode_k_major(const void* data, TmaElement element, int rows, int k, int box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  const cuuint64_t row_stride_bytes[1] = {cuuint64_t(k) * cuuint64_t(element_bytes(element))};
  const cuuint32_t box[2] = {cuuint32_t(box_k(element)), cuuint32_t(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapDataType type =
      element == TmaElement::f32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const CUresult r = encode_tiled()(&map, type, 2, const_cast<void*>(data), dims, row_stride_bytes, box,
                                    element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled refused a (" + std::to_string(rows) + ", " + std::to_string(k) +
                             ") " + (element == TmaElement::f32 ? "fp32" : "bf16") + " matrix with boxes of " +
                             std::to_string(box_rows) + " x " + std::to_string(box_k(element)) + ": CUresult " +
                             std::to_string(int(r)));
  return map;
}

struct CachedMap {
  const void* data;
  TmaElement element;
  int rows, k, box_rows;
  CUtensorMap map;
};

}  // namespace

CUtensorMap k_major_tensor_map(const void* data, TmaElement element, int rows, int k, int box_rows) {
  constexpr std::size_t kKept = 8;  // a GEMM's two operands, for a few problems side by side
  static std::mutex mutex;
  static std::deque<CachedMap> kept;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const CachedMap& c : kept)
    if (c.data == data && c.element == element && c.rows == rows && c.k == k && c.box_rows == box_rows) return c.map;
  kept.push_front({data, element, rows, k, box_rows, encode_k_major(data, element, rows, k, box_rows)});
  if (kept.size() > kKept) kept.pop_back();
  return kept.front().map;
}

}  // namespace nb::gemm::sm90
