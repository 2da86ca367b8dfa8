// One cuDNN backend descriptor and its recipe (backend_descriptor.hpp).
#include "baselines/cudnn/backend_descriptor.hpp"

#include "harness/files/sha256.hpp"
#include "harness/errors.hpp"

namespace nb::cudnn_backend {
namespace {

constexpr std::size_t kLongestInline = 64;  // bytes written as hex; longer values by their SHA-256

std::string hex(const unsigned char* bytes, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) s += {digits[bytes[i] >> 4], digits[bytes[i] & 15]};
  return s;
}

std::string attribute_tag(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type) {
  return std::to_string(int(name)) + ":" + std::to_string(int(type)) + "=";
}

}  // namespace

Descriptor::Descriptor(cudnnBackendDescriptorType_t type) : recipe_("d" + std::to_string(int(type)) + "{") {
  NB_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d_));
}

void Descriptor::refuse_raw_descriptors(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type) const {
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
    throw UsageError("cuDNN attribute " + std::to_string(int(name)) +
                     ": set descriptors with set_desc or set_descs, which know their recipes");
}

Descriptor& Descriptor::set_descs(cudnnBackendAttributeName_t name, const std::vector<const Descriptor*>& others) {
  std::vector<cudnnBackendDescriptor_t> raw;
  std::string recipes;
  for (const Descriptor* o : others) {
    raw.push_back(o->get());
    recipes += o->recipe();
  }
  NB_CUDNN_SUPPORTED(
      cudnnBackendSetAttribute(d_, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, std::int64_t(raw.size()), raw.data()));
  recipe_ += attribute_tag(name, CUDNN_TYPE_BACKEND_DESCRIPTOR) + "[" + recipes + "];";
  return *this;
}

void Descriptor::note_values(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const void* values,
                             std::size_t bytes) {
  recipe_ += attribute_tag(name, type);
  if (type == CUDNN_TYPE_HANDLE || type == CUDNN_TYPE_VOID_PTR) {
    recipe_ += "*;";  // where it lives in this process, not what it is
    return;
  }
  const auto* b = static_cast<const unsigned char*>(values);
  recipe_ += bytes <= kLongestInline ? hex(b, bytes)
                                     : "sha256:" + sha256_hex(std::string(reinterpret_cast<const char*>(b), bytes));
  recipe_ += ";";
}

}  // namespace nb::cudnn_backend
