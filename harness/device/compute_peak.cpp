#include "harness/device/compute_peak.hpp"

namespace nb {
namespace {

struct ArchitecturePeak {
  const char* compute_capability;
  double fp32;  // FFMA: FP32 lanes per SM x 2
  double tf32;  // dense (no sparsity) TF32 tensor-core math with FP32 accumulation
};

// Sources: NVIDIA datasheets and whitepapers, dense figures divided by SMs x boost clock.
//   sm_90 H100 SXM5: 128 FP32 lanes/SM; TF32 494.7 TFLOP/s at 132 SMs x 1830 MHz = 2048.
//   sm_80 A100: 64 FP32 lanes/SM; TF32 156 TFLOP/s at 108 SMs x 1410 MHz = 1024.
//   sm_86 GA10x: 128 FP32 lanes/SM; A40 TF32 74.8 TFLOP/s at 84 SMs x 1740 MHz (RTX A6000:
//         77.4 at 84 x 1800) = 512. GeForce GA10x runs TF32 at half that (RTX 3090: 35.6 at
//         82 x 1695 = 256).
//   sm_89 AD10x: 128 FP32 lanes/SM; L40S TF32 183 TFLOP/s at 142 SMs x 2520 MHz = 512. L40
//         (90.5 at 142 x 2490), RTX 6000 Ada and GeForce AD10x (RTX 4090: 82.6 at 128 x 2520)
//         run it at 256.
// The table keeps the fastest part of each architecture: the check needs an upper bound, so on
// the slower parts it is up to 2x loose for tf32, never wrong.
constexpr ArchitecturePeak kPeaks[] = {
    {"9.0", 256, 2048},
    {"8.0", 128, 1024},
    {"8.6", 256, 512},
    {"8.9", 256, 512},
};

}  // namespace

double flops_per_clock_per_sm(const std::string& compute_capability, DType dtype) {
  for (const ArchitecturePeak& peak : kPeaks) {
    if (compute_capability != peak.compute_capability) continue;
    switch (dtype) {
      case DType::f32: return peak.fp32;
      case DType::tf32: return peak.tf32;
      // bf16 and fp16: the tensor cores' dense rate, twice tf32's on these parts (the GEMM
      // pipelines' bf16 GEMMs run there; the row ops compute in fp32, memory-bound far below it).
      case DType::bf16:
      case DType::f16: return 2 * peak.tf32;
    }
    return 0;
  }
  return 0;
}

double compute_peak_tflops(const GpuInfo& gpu, DType dtype) {
  return flops_per_clock_per_sm(gpu.compute_capability, dtype) * gpu.sm_count * gpu.sm_clock_max_mhz * 1e6 / 1e12;
}

}  // namespace nb
