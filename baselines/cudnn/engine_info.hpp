#pragma once
// What an engine config says about its engine: the engine's global index and its numerical and
// behavior notes (CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION: the engine compiles its kernel with
// NVRTC when its plan is finalized, which is what makes some plans take seconds to build).
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "baselines/cudnn/backend_descriptor.hpp"

namespace nb::cudnn_backend {

struct EngineInfo {
  std::int64_t index = -1;
  std::vector<cudnnBackendNumericalNote_t> numerical;
  std::vector<cudnnBackendBehaviorNote_t> behavior;

  // TF32 on fp32 data: cuDNN marks such engines TENSOR_CORE (and DOWN_CONVERT_INPUTS).
  bool uses_tf32() const;
  bool runtime_compiled() const;
  std::string notes() const;  // "tensor_core,runtime_compilation", or "none"
};

// Of an engine config (a heuristics result, or a finalized plan's); throws nb::Unsupported with
// cuDNN's status when it cannot be read.
EngineInfo engine_info(const Descriptor& config);
// Of a finalized plan, through its engine config.
EngineInfo plan_engine_info(const Descriptor& plan);

}  // namespace nb::cudnn_backend
