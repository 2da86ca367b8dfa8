#include "harness/tensors.hpp"

namespace nb {

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
    if (decls[i].role != TensorRole::output) t.data[i].resize(static_cast<std::size_t>(decls[i].elements));
  return t;
}

ReferenceTensors allocate_references(const std::vector<TensorDecl>& decls) {
  ReferenceTensors r;
  r.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role != TensorRole::input) r.data[i].resize(static_cast<std::size_t>(decls[i].elements));
  return r;
}

std::int64_t total_elements(const std::vector<TensorDecl>& decls) {
  std::int64_t n = 0;
  for (const auto& d : decls) n += d.elements;
  return n;
}

}  // namespace nb
