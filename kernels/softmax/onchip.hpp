#pragma once
// The onchip variant's launch and support check (5_onchip.cu), shared with 6_dispatch.cu, which
// hands it the rows too long for registers.
#include <cuda_runtime.h>

#include "harness/device_buffer.hpp"
#include "harness/problem.hpp"
#include "harness/variant.hpp"

namespace nb::softmax {

// Its workspace (dev::kRowCounterBytes): the counter that hands out rows, zeroed by each launch.
std::size_t onchip_workspace_bytes(const Problem& p);
void launch_onchip(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream);
Support onchip_supports(const Problem& p);
// The clusters its persistent grid keeps resident for this problem (aligned buffers); 0: none fit.
int onchip_resident_clusters(const Problem& p);

}  // namespace nb::softmax
