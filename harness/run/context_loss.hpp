#pragma once
// After a DeviceError: is the CUDA context still usable? A sticky fault (illegal address, launch
// failure, trap) poisons it for good, and nothing more can run in this process; an allocation
// failure or a refused launch configuration does not.
#include <optional>
#include <string>

namespace nb {

// The sticky error's name and message ("cudaErrorIllegalAddress: an illegal memory access was
// encountered"), or nullopt when the context still works.
std::optional<std::string> cuda_context_lost();

// Thrown by the runner when the context is lost: the run ends with a partial report.
struct ContextLost {
  std::string why;
};

}  // namespace nb
