// Welford: the warp variant's (group, slice) split with Welford running statistics per thread and
// Chan's pairwise merge across warps, blocks and slices: stable on offset data (1e4 + N(0,1)).
#include "kernels/groupnorm/split.cuh"
#include "harness/variant.hpp"

namespace nb::groupnorm {

std::unique_ptr<Variant> make_welford_variant() {
  return make_kernel_variant({
      "welford", "welford",
      "(group, slice) blocks: Welford partials to workspace, Chan merge per group, normalize (2 reads + 1 "
      "write)",
      launch_split<dev::Welford>, nullptr, split_workspace<dev::Welford>, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::groupnorm
