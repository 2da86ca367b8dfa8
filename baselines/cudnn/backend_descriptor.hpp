#pragma once
// One cuDNN backend (graph API) descriptor, owned: creation failures are device errors, a failed
// set or finalize is a refusal (nb::Unsupported with cuDNN's status strings), which the harness
// turns into a skip that carries the status.
//
// Each descriptor also writes down its recipe: its type and every attribute set on it, values
// byte for byte (long ones by their SHA-256) and descriptors by their own recipes, leaving out
// handles and pointers. An operation graph's recipe is then the graph's own description, the same
// text in every process: the plan cache keys its plans by it (graph_plan.hpp).
#include <cudnn.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "harness/library_check.hpp"

namespace nb::cudnn_backend {

class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type);
  ~Descriptor() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  cudnnBackendDescriptor_t release() {
    cudnnBackendDescriptor_t d = d_;
    d_ = nullptr;
    return d;
  }

  // Values of any attribute type but CUDNN_TYPE_BACKEND_DESCRIPTOR (set_desc and set_descs take
  // those, so that their recipes are known).
  template <class T>
  Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const T* values,
                  std::int64_t n = 1) {
    refuse_raw_descriptors(name, type);
    NB_CUDNN_SUPPORTED(cudnnBackendSetAttribute(d_, name, type, n, values));
    note_values(name, type, values, std::size_t(n) * sizeof(T));
    return *this;
  }
  Descriptor& set_desc(cudnnBackendAttributeName_t name, const Descriptor& other) { return set_descs(name, {&other}); }
  Descriptor& set_descs(cudnnBackendAttributeName_t name, const std::vector<const Descriptor*>& others);
  void finalize() { NB_CUDNN_SUPPORTED(cudnnBackendFinalize(d_)); }

  // "d<type>{<attribute>:<type>=<hex>;...}" as described above.
  std::string recipe() const { return recipe_ + "}"; }

 private:
  void refuse_raw_descriptors(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type) const;
  void note_values(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const void* values,
                   std::size_t bytes);

  cudnnBackendDescriptor_t d_ = nullptr;
  std::string recipe_;
};

}  // namespace nb::cudnn_backend
