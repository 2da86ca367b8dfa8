#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/gemm/sm90/wgmma_gemm.hpp"

namespace nb::gemm::sm90 {

std::string wgmma_device_refusal() {
  int device = 0, major = 0, minor = 0;  // attributes, not the properties: cheap enough per launch
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

namespace {

template <class Element>
std::string refusal_of(const OperandsOf<Element>& op, const char* precision) {
  if (op.m < 1 || op.n < 1 || op.k < 1) return "the Hopper GEMM needs M, N and K of at least 1";
  if (std::string device = wgmma_device_refusal(); !device.empty()) return device;
  constexpr int kElementsPer16Bytes = 16 / int(sizeof(Element));
  if (op.k % kElementsPer16Bytes != 0)
    return "K = " + std::to_string(op.k) + " is not a multiple of " + std::to_string(kElementsPer16Bytes) + " in " +
           precision + ": TMA needs 16-byte row strides";
  if (reinterpret_cast<std::uintptr_t>(op.a) % 16 != 0 || reinterpret_cast<std::uintptr_t>(op.b) % 16 != 0)
    return "an operand does not start on a 16-byte boundary, as TMA needs";
  const long long tiles = (op.m + kWgmmaTileM - 1LL) / kWgmmaTileM * ((op.n + kWgmmaTileN - 1LL) / kWgmmaTileN);
  if (tiles > 0x7fffffffLL)
    return std::to_string(tiles) + " output tiles: more than one launch's grid holds";
  return "";
}

}  // namespace

std::string wgmma_gemm_refusal(const Operands& op) { return refusal_of(op, "fp32"); }
std::string wgmma_gemm_refusal(const Bf16Operands& op) { return refusal_of(op, "bf16"); }

}  // namespace nb::gemm::sm90
