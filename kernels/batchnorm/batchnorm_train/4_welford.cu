// Welford: single-pass Welford per thread (on x minus a per-channel pivot), Chan merges across
// warps, blocks and the grid; (channel, slice) blocks keep C = 64 from starving 132 SMs.
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "kernels/batchnorm/batchnorm_train/split.hpp"

namespace nb::batchnorm_train {
namespace {

// Scalar loads and channel slices for every layout: the 1d layout reads columns (strided).
std::size_t workspace(const Problem& p) { return split::workspace_bytes(p, split::SplitStyle::plain); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  split::launch(a, split::plan_for(a, split::SplitStyle::plain), ws, stream);
}

}  // namespace

std::unique_ptr<Variant> make_welford_variant() {
  return make_kernel_variant({
      "welford", "welford",
      "(channel, slice) blocks, pivot-shifted Welford per thread, Chan merge over warps, blocks, grid",
      launch, nullptr, workspace, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::batchnorm_train
