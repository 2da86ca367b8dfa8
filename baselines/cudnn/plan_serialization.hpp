#pragma once
// A finalized execution plan as bytes and back, through the backend API: the plan's
// CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION is read from a finalized plan, and set, with the
// handle, on a new CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR that is then finalized. cuDNN
// serializes the plans of its runtime-compiled engines with their compiled kernels, so loading
// one skips the compilation (docs/cudnn-plan-cache.md); it may refuse to serialize other engines'
// plans, and refuses to load a plan made for another GPU or cuDNN.
#include <cudnn.h>

#include <memory>
#include <string>

#include "baselines/cudnn/backend_descriptor.hpp"

namespace nb::cudnn_backend {

// The plan's serialized bytes; throws nb::Unsupported with cuDNN's status when it gives none.
std::string serialize_plan(const Descriptor& plan);
// A finalized plan, bound to `handle`, from serialize_plan's bytes; throws nb::Unsupported with
// cuDNN's status when cuDNN refuses them.
std::unique_ptr<Descriptor> deserialize_plan(cudnnHandle_t handle, const std::string& bytes);
// The plan's workspace in bytes.
std::size_t plan_workspace(const Descriptor& plan);

// What plans are built with, as the plan cache keys them: the current CUDA device's name and
// compute capability, the driver, and cuDNN's library and header versions, e.g.
// "NVIDIA H100 80GB HBM3 sm_90, driver 570.86.15, CUDA driver API 12080, cuDNN 91400 (headers 91400)".
// Throws DeviceError when there is no device.
std::string plan_identity();

}  // namespace nb::cudnn_backend
