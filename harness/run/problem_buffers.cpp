#include "harness/run/problem_buffers.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/narrow_float.hpp"

namespace nb {
namespace {

// Storage rounded up to 16 bytes: a 2-byte tensor of odd length still ends on whole words, so
// poison and hash cover its last element, and vector loads of the last pack stay inside it.
std::size_t padded_bytes(const TensorDecl& d) { return (storage_bytes(d) + 15) / 16 * 16; }

}  // namespace

ProblemBuffers ProblemBuffers::allocate(const OpSpec& op, const Problem& problem, const std::vector<Variant*>& variants,
                                        TensorPlacement placement) {
  ProblemBuffers b;
  b.decls = op.tensors(problem);
  b.placement = placement;
  for (const auto& d : b.decls) {
    const std::size_t offset = placement == TensorPlacement::misaligned ? dtype_size(d.dtype) : 0;
    b.storage.emplace_back(padded_bytes(d) + (offset > 0 ? 16 : 0));  // the pad keeps the tensor's own padding
    const DeviceBuffer& whole = b.storage.back();  // never null: cudaMalloc gives even 0 bytes 256
    NB_CUDA_CHECK(cudaMemset(whole.get(), 0, whole.bytes()));
    b.tensors.buffers.push_back(DeviceBuffer::borrow(static_cast<char*>(whole.get()) + offset, padded_bytes(d)));
  }
  // The zeroing runs on the default stream, which the harness's non-blocking streams do not wait
  // for: finish it here, or a first upload on those streams can land before it and be wiped.
  NB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  std::size_t workspace = 0;
  for (Variant* v : variants) workspace = std::max(workspace, v->workspace_bytes(problem));
  b.workspace = DeviceBuffer(workspace);
  return b;
}

void ProblemBuffers::upload(const HostTensors& host, std::vector<TensorRole> roles, cudaStream_t stream) const {
  std::vector<std::vector<std::uint16_t>> encoded;  // narrow tensors' bits, alive until the copies end
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (std::find(roles.begin(), roles.end(), decls[i].role) == roles.end()) continue;
    const auto& values = host.data.at(i);
    const void* src = values.data();
    if (is_narrow(decls[i].dtype)) {
      encoded.emplace_back(values.size());
      encode_narrow(values.data(), encoded.back().data(), static_cast<std::int64_t>(values.size()), decls[i].dtype);
      src = encoded.back().data();
    }
    NB_CUDA_CHECK(cudaMemcpyAsync(tensors.buffers[i].get(), src, values.size() * dtype_size(decls[i].dtype),
                                  cudaMemcpyHostToDevice, stream));
  }
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void ProblemBuffers::download_results(HostTensors& host, cudaStream_t stream) const {
  host.data.resize(decls.size());
  std::vector<std::pair<std::size_t, std::vector<std::uint16_t>>> encoded;  // narrow tensors, decoded after the copies
  for (std::size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].role == TensorRole::input) continue;
    auto& values = host.data[i];
    values.resize(static_cast<std::size_t>(decls[i].elements));  // no-op when allocate_host_results sized it
    void* dst = values.data();
    if (is_narrow(decls[i].dtype)) {
      encoded.emplace_back(i, std::vector<std::uint16_t>(values.size()));
      dst = encoded.back().second.data();
    }
    NB_CUDA_CHECK(cudaMemcpyAsync(dst, tensors.buffers[i].get(), values.size() * dtype_size(decls[i].dtype),
                                  cudaMemcpyDeviceToHost, stream));
  }
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (const auto& [i, bits] : encoded)
    decode_narrow(bits.data(), host.data[i].data(), static_cast<std::int64_t>(bits.size()), decls[i].dtype);
}

void ProblemBuffers::poison_outputs(cudaStream_t stream, int payload) const {
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role == TensorRole::output)
      poison_async(tensors.buffers[i].get(), hashed_bytes(i), stream, is_narrow(decls[i].dtype), payload);
}

void ProblemBuffers::scribble_workspace(cudaStream_t stream, int payload) const {
  scribble_async(workspace.get(), workspace.bytes(), stream, payload);
}

std::vector<std::uint64_t> ProblemBuffers::input_hashes(cudaStream_t stream) const {
  std::vector<HashedBytes> inputs;
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role == TensorRole::input) inputs.push_back({tensors.buffers[i].get(), hashed_bytes(i)});
  return device_hashes(inputs, stream);
}

std::size_t ProblemBuffers::hashed_bytes(std::size_t i) const { return (storage_bytes(decls.at(i)) + 3) / 4 * 4; }

}  // namespace nb
