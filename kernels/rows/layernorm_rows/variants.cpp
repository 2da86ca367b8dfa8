// The layernorm_rows variant table, in the order a reader should meet them. Each factory is defined
// in its numbered file; a variant is that file, its declaration here and its line in the table.
#include <memory>
#include <vector>

#include "kernels/rows/layernorm_rows/spec.hpp"

namespace nb::layernorm_rows {

std::unique_ptr<Variant> make_naive_variant();         // 1_naive.cu
std::unique_ptr<Variant> make_smem_variant();          // 2_smem.cu
std::unique_ptr<Variant> make_warp_variant();          // 3_warp.cu
std::unique_ptr<Variant> make_welford_variant();       // 4_welford.cu
std::unique_ptr<Variant> make_register_row_variant();  // 5_register_row.cu
std::unique_ptr<Variant> make_cudnn_variant();         // 6_cudnn.cpp

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> table;
  table.push_back(make_naive_variant());
  table.push_back(make_smem_variant());
  table.push_back(make_warp_variant());
  table.push_back(make_welford_variant());
  table.push_back(make_register_row_variant());
  table.push_back(make_cudnn_variant());
  return table;
}

}  // namespace nb::layernorm_rows
