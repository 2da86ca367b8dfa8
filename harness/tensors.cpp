#include "harness/tensors.hpp"

#include "harness/host_memory.hpp"

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

HostTensors allocate_host_inputs(const std::vector<TensorDecl>& decls) {
  HostTensors t;
  t.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role != TensorRole::output) resize_on_huge_pages(t.data[i], static_cast<std::size_t>(decls[i].elements));
  return t;
}

ReferenceTensors allocate_references(const std::vector<TensorDecl>& decls) {
  ReferenceTensors r;
  r.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role != TensorRole::input) resize_on_huge_pages(r.data[i], static_cast<std::size_t>(decls[i].elements));
  return r;
}

HostTensors allocate_host_results(const std::vector<TensorDecl>& decls) {
  HostTensors t;
  t.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role != TensorRole::input) resize_on_huge_pages(t.data[i], static_cast<std::size_t>(decls[i].elements));
  return t;
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
