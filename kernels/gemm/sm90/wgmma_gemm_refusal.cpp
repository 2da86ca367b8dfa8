#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/gemm/sm90/wgmma_gemm.hpp"

namespace nb::gemm::sm90 {

std::string wgmma_device_refusal() {
  int device = 0, major = 0, minor = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (e != cudaSuccess) {
    cudaGetLastError();  // asked of a variant's supports(), where no CUDA error may be left behind
    return std::string("the Hopper GEMM needs a CUDA device: ") + cudaGetErrorString(e);
  }
  if (major == 9 && minor == 0) return "";
  return "the Hopper GEMM (TMA, wgmma) runs on sm_90 only; this GPU is sm_" + std::to_string(major) +
         std::to_string(minor);
}

std::string wgmma_shape_refusal(int m, int n, int k, int element_bytes) {
  if (m < 1 || n < 1 || k < 1) return "the Hopper GEMM needs M, N and K of at least 1";
  const int elements_per_16_bytes = 16 / element_bytes;
  if (k % elements_per_16_bytes != 0)
    return "K = " + std::to_string(k) + " is not a multiple of " + std::to_string(elements_per_16_bytes) + " in " +
           (element_bytes == 2 ? "bf16" : "fp32") + ": TMA needs 16-byte row strides";
  const long long tiles = (long long)wgmma_tiles_m(m) * wgmma_tiles_n(n);
  if (tiles > 0x7fffffffLL) return std::to_string(tiles) + " output tiles: more than one launch's grid holds";
  return "";
}

namespace {

template <class Element>
std::string operands_refusal(const OperandsOf<Element>& op) {
  if (std::string shape = wgmma_shape_refusal(op.m, op.n, op.k, int(sizeof(Element))); !shape.empty()) return shape;
  if (reinterpret_cast<std::uintptr_t>(op.a) % 16 != 0 || reinterpret_cast<std::uintptr_t>(op.b) % 16 != 0)
    return "an operand does not start on a 16-byte boundary, as TMA needs";
  return "";
}

template <class Element>
std::string gemm_refusal(const OperandsOf<Element>& op) {
  if (std::string device = wgmma_device_refusal(); !device.empty()) return device;
  return operands_refusal(op);
}

}  // namespace

std::string wgmma_operands_refusal(const Operands& op) { return operands_refusal(op); }
std::string wgmma_operands_refusal(const Bf16Operands& op) { return operands_refusal(op); }
std::string wgmma_gemm_refusal(const Operands& op) { return gemm_refusal(op); }
std::string wgmma_gemm_refusal(const Bf16Operands& op) { return gemm_refusal(op); }

}  // namespace nb::gemm::sm90
