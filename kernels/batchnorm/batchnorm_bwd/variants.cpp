// The batchnorm_bwd variants, in the order a reader should meet them.
#include "kernels/batchnorm/cudnn.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"

namespace nb::batchnorm_bwd {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> v;
  for (auto spec : {naive_variant(), smem_variant(), warp_variant(), split_variant()})
    v.push_back(make_kernel_variant(std::move(spec)));
  v.push_back(bn::make_cudnn_backward_variant());
  return v;
}

}  // namespace nb::batchnorm_bwd
