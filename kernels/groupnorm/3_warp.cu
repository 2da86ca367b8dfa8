// Warp: (group, slice) blocks reduce fp32 sum and sum of squares with warp shuffles (one shared
// slot per warp), partials go to the workspace, a second kernel merges them and normalizes.
#include "kernels/groupnorm/split.cuh"
#include "harness/variant.hpp"

namespace nb::groupnorm {

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant({
      "warp", "warp",
      "(group, slice) blocks: shuffle-reduced fp32 sum/sum-of-squares partials to workspace, then merge + "
      "normalize (2 reads + 1 write)",
      launch_split<SumSquares>, nullptr, split_workspace<SumSquares>, {}});
}

}  // namespace nb::groupnorm
