// Split: the Welford grid merge with 16-byte loads, threads on consecutive channels for the 1d
// layout (coalesced when C is large and N small); the 2d y pass sweeps the tensor in address order.
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "kernels/batchnorm/batchnorm_train/split.hpp"

namespace nb::batchnorm_train {
namespace {

std::size_t workspace(const Problem& p) { return split::workspace_bytes(p, split::SplitStyle::tuned); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  split::launch(a, split::plan_for(a, split::SplitStyle::tuned), ws, stream);
}

}  // namespace

std::unique_ptr<Variant> make_split_variant() {
  return make_kernel_variant({
      "split", "fused",
      "Welford over (channel, slice) or (channel-tile, row-slice) blocks, float4, y pass in address order (2d)",
      launch, nullptr, workspace, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::batchnorm_train
