// The softmax variant table, in the order a reader should meet them.
#include "kernels/softmax/cudnn.hpp"
#include "kernels/softmax/spec.hpp"
#include "kernels/softmax/variants.hpp"

namespace nb::softmax {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> v;
  v.push_back(make_kernel_variant(naive_variant()));
  v.push_back(make_kernel_variant(smem_variant()));
  v.push_back(make_kernel_variant(warp_variant()));
  v.push_back(make_kernel_variant(online_variant()));
  v.push_back(make_kernel_variant(onchip_variant()));
  v.push_back(make_kernel_variant(dispatch_variant()));
  v.push_back(make_softmax_cudnn_variant());
  return v;
}

}  // namespace nb::softmax
