#include "harness/run/problem_buffers.hpp"

#include <algorithm>

#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"

namespace nb {

ProblemBuffers ProblemBuffers::allocate(const OpSpec& op, const Problem& problem, const std::vector<Variant*>& variants) {
  ProblemBuffers b;
  b.decls = op.tensors(problem);
  for (const auto& d : b.decls)
    b.tensors.buffers.emplace_back(static_cast<std::size_t>(d.elements) * dtype_size(problem.dtype));
  std::size_t workspace = 0;
  for (Variant* v : variants) workspace = std::max(workspace, v->workspace_bytes(problem));
  b.workspace = DeviceBuffer(workspace);
  return b;
}

void ProblemBuffers::upload(const HostTensors& host, std::vector<TensorRole> roles, cudaStream_t stream) const {
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (std::find(roles.begin(), roles.end(), decls[i].role) == roles.end()) continue;
    const auto& values = host.data.at(i);
    NB_CUDA_CHECK(cudaMemcpyAsync(tensors.buffers[i].get(), values.data(), values.size() * sizeof(float),
                                  cudaMemcpyHostToDevice, stream));
  }
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void ProblemBuffers::download_results(HostTensors& host, cudaStream_t stream) const {
  host.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::input) continue;
    auto& values = host.data[i];
    values.resize(static_cast<std::size_t>(decls[i].elements));  // no-op when allocate_host_results sized it
    NB_CUDA_CHECK(cudaMemcpyAsync(values.data(), tensors.buffers[i].get(), values.size() * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream));
  }
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void ProblemBuffers::poison_outputs(cudaStream_t stream) const {
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role == TensorRole::output)
      poison_async(tensors.buffers[i].get(), static_cast<std::size_t>(decls[i].elements) * sizeof(float), stream);
}

}  // namespace nb
