// The min_dim1 variant table, in the order a reader should meet them.
#include "kernels/min_dim1/spec.hpp"
#include "kernels/min_dim1/variants.hpp"

namespace nb::min_dim1 {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> v;
  v.push_back(make_kernel_variant(naive_variant()));
  v.push_back(make_kernel_variant(warp_variant()));
  v.push_back(make_kernel_variant(vec_variant()));
  return v;
}

}  // namespace nb::min_dim1
