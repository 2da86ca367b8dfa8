#pragma once
// A problem's device tensors and the workspace its variants need, with the host<->device
// copies that validation and timing use.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "harness/device_buffer.hpp"
#include "harness/op_spec.hpp"

namespace nb {

struct ProblemBuffers {
  std::vector<TensorDecl> decls;
  DeviceTensors tensors;  // views into `storage`
  DeviceBuffer workspace;
  TensorPlacement placement = TensorPlacement::aligned;
  std::vector<DeviceBuffer> storage;  // the allocations behind `tensors`, one per tensor

  // Allocates every declared tensor (placed as `placement` says, zeroed) and the largest workspace
  // among `variants`.
  static ProblemBuffers allocate(const OpSpec& op, const Problem& problem, const std::vector<Variant*>& variants,
                                 TensorPlacement placement = TensorPlacement::aligned);

  // Copies the host values of every tensor whose role is in `roles` to the device.
  void upload(const HostTensors& host, std::vector<TensorRole> roles, cudaStream_t stream) const;
  // Copies every output and inout tensor back into `host` (resized as needed).
  void download_results(HostTensors& host, cudaStream_t stream) const;
  // Writes the poison pattern of `payload` (stored::poison_payload) into every output tensor.
  void poison_outputs(cudaStream_t stream, int payload = 0) const;
  // Fills the workspace with the pattern of `payload` (scribble_async: a NaN, or a huge finite
  // value): a variant must write its scratch before it reads it.
  void scribble_workspace(cudaStream_t stream, int payload) const;
  // A hash of every input tensor's device bytes, in declaration order.
  std::vector<std::uint64_t> input_hashes(cudaStream_t stream) const;
  // Device bytes of tensor i that hashing covers: its storage rounded up to 4-byte words (the
  // allocation is padded and zeroed, so the pad hashes the same before and after a launch).
  std::size_t hashed_bytes(std::size_t i) const;
};

}  // namespace nb
