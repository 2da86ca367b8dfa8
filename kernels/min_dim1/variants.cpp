// The min_dim1 variant table, in the order a reader should meet them. Each factory is defined in
// its numbered file; a variant is that file, its declaration here and its line in the table.
#include <memory>
#include <vector>

#include "kernels/min_dim1/spec.hpp"

namespace nb::min_dim1 {

std::unique_ptr<Variant> make_naive_variant();  // 1_naive.cu
std::unique_ptr<Variant> make_warp_variant();   // 2_warp.cu
std::unique_ptr<Variant> make_vec_variant();    // 3_vec.cu

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> table;
  table.push_back(make_naive_variant());
  table.push_back(make_warp_variant());
  table.push_back(make_vec_variant());
  return table;
}

}  // namespace nb::min_dim1
