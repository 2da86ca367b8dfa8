#pragma once
// A problem's tensors as a float64 reference program sees them (harness/validation/executor.hpp):
// raw memory on the executor's side, each input in its storage type, each output's reference in
// double. Programs copy the pointers they need into their functors.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/stored_value.hpp"
#include "harness/tensors.hpp"

namespace nb {

struct ProgramTensors {
  std::vector<void*> data;  // per declared tensor, in declaration order
  std::vector<DType> storage;
  std::vector<std::int64_t> elements;

  stored::Tensor in(int i) const { return {data.at(std::size_t(i)), storage.at(std::size_t(i))}; }
  stored::MutableTensor out(int i) const { return {data.at(std::size_t(i)), storage.at(std::size_t(i))}; }
  // An fp32-stored tensor's floats (statistics, GEMM operands); throws for a narrow one.
  const float* f32(int i) const { return mutable_f32(i); }
  float* mutable_f32(int i) const {
    if (stored::narrow(storage.at(std::size_t(i)))) throw std::logic_error("tensor " + std::to_string(i) + " is not fp32");
    return static_cast<float*>(data.at(std::size_t(i)));
  }
  std::int64_t size(int i) const { return elements.at(std::size_t(i)); }
};

// The float64 reference of each output and inout tensor (null for inputs).
struct ProgramReference {
  std::vector<double*> data;
  double* operator[](int i) const { return data.at(std::size_t(i)); }
};

// The conditions a reference reports beside its values: what the tolerances scale with
// (harness/validation/trial_tolerance.hpp).
struct ReferenceConditions {
  double instance = 1;             // the larger of OpSpec::condition and the reference's own
  std::vector<double> per_tensor;  // OpSpec::tensor_condition per declared tensor; empty means 1 for all
  // Each declared tensor's operand amplification (ReferenceTensors'); empty means 0 for all.
  std::vector<double> operand_amplification;
  double of(std::size_t tensor) const { return tensor < per_tensor.size() ? per_tensor[tensor] : 1.0; }
  double amplification_of(std::size_t tensor) const {
    return tensor < operand_amplification.size() ? operand_amplification[tensor] : 0.0;
  }
};

}  // namespace nb
