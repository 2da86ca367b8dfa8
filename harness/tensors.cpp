#include "harness/tensors.hpp"

namespace nb {

std::vector<std::int64_t> dims_of(const TensorDecl& d) {
  if (d.shape.empty()) return {d.elements};
  return d.shape;
}

std::string format_dims(const std::vector<std::int64_t>& dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

const char* role_name(TensorRole r) {
  switch (r) {
    case TensorRole::input: return "input";
    case TensorRole::output: return "output";
    case TensorRole::inout: return "inout";
  }
  return "?";
}

std::size_t storage_bytes(const TensorDecl& d) {
  return static_cast<std::size_t>(d.elements) * dtype_size(d.dtype);
}

std::int64_t total_elements(const std::vector<TensorDecl>& decls) {
  std::int64_t n = 0;
  for (const auto& d : decls) n += d.elements;
  return n;
}

}  // namespace nb
