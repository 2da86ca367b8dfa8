#pragma once
// launch_gemm for epilogues that synchronize the whole grid (grid_barrier.cuh): a cooperative
// launch, which the driver refuses unless every CTA can be resident at once. A grid too large
// for that is Unsupported, with the numbers.
#include <cstdint>
#include <string>

#include "harness/errors.hpp"
#include "kernels/gemm/gemm_kernel.cuh"

namespace nb::linear {

template <class Mainloop, class Epilogue, bool kVector>
void launch_cooperative_instance(const gemm::Operands& op, const Epilogue& epilogue, cudaStream_t stream) {
  auto kernel = gemm::gemm_kernel<Mainloop, Epilogue, kVector>;
  gemm::configure_gemm_kernel<Mainloop, Epilogue, kVector>();
  const dim3 grid(unsigned(gemm::tiles_m<Mainloop>(op.m)), unsigned(gemm::tiles_n<Mainloop>(op.n)));
  const std::size_t smem = gemm::gemm_smem_bytes<Mainloop, Epilogue>();
  int device = 0, sms = 0, per_sm = 0;
  NB_CUDA_CHECK(cudaGetDevice(&device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Mainloop::kThreads, smem));
  if (std::int64_t(grid.x) * grid.y > std::int64_t(per_sm) * sms)
    throw Unsupported("a grid-wide barrier needs all " + std::to_string(grid.x * grid.y) + " CTAs resident; " +
                      std::to_string(per_sm) + " per SM x " + std::to_string(sms) + " SMs fit");
  gemm::Operands op_arg = op;
  Epilogue epilogue_arg = epilogue;
  void* args[] = {&op_arg, &epilogue_arg};
  NB_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid, dim3(Mainloop::kThreads),
                                            args, smem, stream));
}

template <class Mainloop, class Epilogue>
void launch_gemm_cooperative(const gemm::Operands& op, const Epilogue& epilogue, cudaStream_t stream) {
  if (gemm::vector_path(op))
    launch_cooperative_instance<Mainloop, Epilogue, true>(op, epilogue, stream);
  else
    launch_cooperative_instance<Mainloop, Epilogue, false>(op, epilogue, stream);
}

}  // namespace nb::linear
