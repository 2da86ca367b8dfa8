// Split tail: split's three passes chained tighter. The y pass walks x from its end down, so it
// starts with the tens of MB the statistics pass (in address order) left in L2, with x loaded and
// y stored evict-first so that the tail survives until the pass reaches it; the finalize merges a
// channel's partials with a whole block; finalize and y pass are programmatic dependents,
// launched while the kernel ahead of them drains.
//
// Prediction (H100, 64x64x512x512, 12.9 GB as split): at most ~40 MB of x read from L2 instead of
// DRAM (13 us), ~3 us of finalize, 2-4 us of launch gaps: 4.315 -> ~4.295 ms, no more than 0.5%.
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "kernels/batchnorm/batchnorm_train/split.hpp"

namespace nb::batchnorm_train {
namespace {

std::size_t workspace(const Problem& p) { return split::workspace_bytes(p, split::SplitStyle::tuned); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  split::PassChain chain;
  chain.tail_first = chain.block_finalize = chain.dependent_launches = true;
  split::launch(a, split::plan_for(a, split::SplitStyle::tuned), ws, stream, chain);
}

}  // namespace

std::unique_ptr<Variant> make_split_tail_variant() {
  return make_kernel_variant({
      "split_tail", "fused",
      "split with the y pass from the end of x down (L2 tail first, evict-first), block finalize, "
      "programmatic dependent launches",
      launch, nullptr, workspace, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::batchnorm_train
