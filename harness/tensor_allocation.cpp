// The host tensors' allocations, on huge pages (host_memory): kept apart from tensors.cpp, whose
// declarations and dimension text are pure host code the fuzz build compiles without CUDA.
#include "harness/host_memory.hpp"
#include "harness/tensors.hpp"

namespace nb {

namespace {

// Every tensor but those of the role left out, sized on huge pages.
template <class Tensors>
Tensors allocate_all_but(const std::vector<TensorDecl>& decls, TensorRole left_out) {
  Tensors t;
  t.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role != left_out) resize_on_huge_pages(t.data[i], static_cast<std::size_t>(decls[i].elements));
  return t;
}

}  // namespace

HostTensors allocate_host_inputs(const std::vector<TensorDecl>& decls) {
  return allocate_all_but<HostTensors>(decls, TensorRole::output);
}

ReferenceTensors allocate_references(const std::vector<TensorDecl>& decls) {
  return allocate_all_but<ReferenceTensors>(decls, TensorRole::input);
}

HostTensors allocate_host_results(const std::vector<TensorDecl>& decls) {
  return allocate_all_but<HostTensors>(decls, TensorRole::input);
}

}  // namespace nb
