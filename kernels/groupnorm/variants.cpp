// The GroupNorm variant table, in the order a reader should meet them.
#include "kernels/groupnorm/cudnn.hpp"
#include "kernels/groupnorm/spec.hpp"
#include "kernels/groupnorm/variants.hpp"

namespace nb::groupnorm {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> v;
  v.push_back(make_kernel_variant(naive_variant()));
  v.push_back(make_kernel_variant(smem_variant()));
  v.push_back(make_kernel_variant(warp_variant()));
  v.push_back(make_kernel_variant(welford_variant()));
  v.push_back(make_kernel_variant(onchip_variant()));
  v.push_back(make_groupnorm_cudnn_variant());
  return v;
}

}  // namespace nb::groupnorm
