// What an engine config says about its engine (engine_info.hpp).
#include "baselines/cudnn/engine_info.hpp"

#include <array>

#include "harness/library_check.hpp"

namespace nb::cudnn_backend {
namespace {

std::string numerical_note_name(cudnnBackendNumericalNote_t note) {
  switch (note) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE: return "tensor_core";
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS: return "down_convert_inputs";
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION: return "reduced_precision_reduction";
    case CUDNN_NUMERICAL_NOTE_FFT: return "fft";
    case CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC: return "nondeterministic";
    case CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP: return "strict_nan_prop";
    default: return "numerical_note_" + std::to_string(int(note));
  }
}

std::string behavior_note_name(cudnnBackendBehaviorNote_t note) {
  switch (note) {
    case CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION: return "runtime_compilation";
    case CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API: return "cuda_graph_native";
    default: return "behavior_note_" + std::to_string(int(note));
  }
}

EngineInfo engine_info_of(cudnnBackendDescriptor_t config) {
  EngineInfo info;
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t raw = engine.get();
  int64_t count = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                              &count, &raw));
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count,
                                              &info.index));
  std::array<cudnnBackendNumericalNote_t, CUDNN_NUMERICAL_NOTE_TYPE_COUNT> numerical{};
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                              int64_t(numerical.size()), &count, numerical.data()));
  info.numerical.assign(numerical.begin(), numerical.begin() + count);
  std::array<cudnnBackendBehaviorNote_t, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT> behavior{};
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                              int64_t(behavior.size()), &count, behavior.data()));
  info.behavior.assign(behavior.begin(), behavior.begin() + count);
  return info;
}

}  // namespace

bool EngineInfo::uses_tf32() const {
  for (auto note : numerical)
    if (note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return true;
  return false;
}

bool EngineInfo::runtime_compiled() const {
  for (auto note : behavior)
    if (note == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) return true;
  return false;
}

std::string EngineInfo::notes() const {
  std::string s;
  for (auto note : numerical) s += (s.empty() ? "" : ",") + numerical_note_name(note);
  for (auto note : behavior) s += (s.empty() ? "" : ",") + behavior_note_name(note);
  return s.empty() ? "none" : s;
}

EngineInfo engine_info(const Descriptor& config) { return engine_info_of(config.get()); }

EngineInfo plan_engine_info(const Descriptor& plan) {
  Descriptor config(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  cudnnBackendDescriptor_t raw = config.get();
  int64_t count = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw));
  return engine_info_of(raw);
}

}  // namespace nb::cudnn_backend
