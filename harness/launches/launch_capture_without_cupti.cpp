// The build without CUPTI (-DNB_CUPTI=OFF, or CUDA::cupti not found): every case's record says why.
#include "harness/launches/launch_capture.hpp"

namespace nb {

CaseLaunches capture_launches(const std::function<void()>&, cudaStream_t) {
  return CaseLaunches::unavailable(NORMBENCH_NO_CUPTI_REASON);
}

void end_launch_capture() {}

}  // namespace nb
