// The host tensors' allocations, on huge pages (host_memory): kept apart from tensors.cpp, whose
// declarations and dimension text are pure host code the fuzz build compiles without CUDA.
#include "harness/host_memory.hpp"
#include "harness/tensors.hpp"

namespace nb {

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

}  // namespace nb
