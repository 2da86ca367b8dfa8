#include "harness/run/problem_buffers.hpp"

#include <algorithm>
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/narrow_float.hpp"

namespace nb {
namespace {

// Storage rounded up to 16 bytes: a 2-byte tensor of odd length still ends on whole words, so
// poison and hash cover its last element, and vector loads of the last pack stay inside it.
std::size_t padded_bytes(const TensorDecl& d) { return (storage_bytes(d) + 15) / 16 * 16; }

}  // namespace

ProblemBuffers ProblemBuffers::allocate(const OpSpec& op, const Problem& problem, const std::vector<Variant*>& variants) {
  ProblemBuffers b;
  b.decls = op.tensors(problem);
  for (const auto& d : b.decls) {
    b.tensors.buffers.emplace_back(padded_bytes(d));
    if (b.tensors.buffers.back().get())
      NB_CUDA_CHECK(cudaMemset(b.tensors.buffers.back().get(), 0, b.tensors.buffers.back().bytes()));
  }
  std::size_t workspace = 0;
  for (Variant* v : variants) workspace = std::max(workspace, v->workspace_bytes(problem));
  b.workspace = DeviceBuffer(workspace);
  return b;
}

void ProblemBuffers::upload(const HostTensors& host, std::vector<TensorRole> roles, cudaStream_t stream) const {
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (std::find(roles.begin(), roles.end(), decls[i].role) == roles.end()) continue;
    const auto& values = host.data.at(i);
    if (!is_narrow(decls[i].dtype)) {
      NB_CUDA_CHECK(cudaMemcpyAsync(tensors.buffers[i].get(), values.data(), values.size() * sizeof(float),
                                    cudaMemcpyHostToDevice, stream));
      continue;
    }
    std::vector<std::uint16_t> stored(values.size());
    encode_narrow(values.data(), stored.data(), static_cast<std::int64_t>(values.size()), decls[i].dtype);
    NB_CUDA_CHECK(cudaMemcpyAsync(tensors.buffers[i].get(), stored.data(), stored.size() * sizeof(std::uint16_t),
                                  cudaMemcpyHostToDevice, stream));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream));  // `stored` leaves scope
  }
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void ProblemBuffers::download_results(HostTensors& host, cudaStream_t stream) const {
  host.data.resize(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::input) continue;
    auto& values = host.data[i];
    values.resize(static_cast<std::size_t>(decls[i].elements));  // no-op when allocate_host_results sized it
    if (!is_narrow(decls[i].dtype)) {
      NB_CUDA_CHECK(cudaMemcpyAsync(values.data(), tensors.buffers[i].get(), values.size() * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream));
      continue;
    }
    std::vector<std::uint16_t> stored(values.size());
    NB_CUDA_CHECK(cudaMemcpyAsync(stored.data(), tensors.buffers[i].get(), stored.size() * sizeof(std::uint16_t),
                                  cudaMemcpyDeviceToHost, stream));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream));
    decode_narrow(stored.data(), values.data(), static_cast<std::int64_t>(values.size()), decls[i].dtype);
  }
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void ProblemBuffers::poison_outputs(cudaStream_t stream) const {
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role == TensorRole::output)
      poison_async(tensors.buffers[i].get(), hashed_bytes(i), stream, is_narrow(decls[i].dtype));
}

std::vector<std::uint64_t> ProblemBuffers::input_hashes(cudaStream_t stream) const {
  DeviceHasher hasher;
  std::vector<std::uint64_t> hashes;
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role == TensorRole::input) hashes.push_back(hasher.hash(tensors.buffers[i].get(), hashed_bytes(i), stream));
  return hashes;
}

std::size_t ProblemBuffers::hashed_bytes(std::size_t i) const { return (storage_bytes(decls.at(i)) + 3) / 4 * 4; }

}  // namespace nb
