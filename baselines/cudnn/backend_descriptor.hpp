#pragma once
// One cuDNN backend (graph API) descriptor, owned: creation failures are device errors, a failed
// set or finalize is a refusal (nb::Unsupported with cuDNN's status strings), which the harness
// turns into a skip that carries the status.
#include <cudnn.h>

#include <cstdint>

#include "harness/library_check.hpp"

namespace nb::cudnn_backend {

class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type) { NB_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d_)); }
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

  template <class T>
  Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const T* values,
                  std::int64_t n = 1) {
    NB_CUDNN_SUPPORTED(cudnnBackendSetAttribute(d_, name, type, n, values));
    return *this;
  }
  Descriptor& set_desc(cudnnBackendAttributeName_t name, const Descriptor& other) {
    cudnnBackendDescriptor_t o = other.get();
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, &o);
  }
  void finalize() { NB_CUDNN_SUPPORTED(cudnnBackendFinalize(d_)); }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

}  // namespace nb::cudnn_backend
