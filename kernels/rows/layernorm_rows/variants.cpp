// The variant table of layernorm_rows, in the order a reader should meet them.
#include "kernels/rows/layernorm_rows/spec.hpp"

namespace nb::layernorm_rows {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> table;
  table.push_back(make_naive_variant());         // 1_naive.cu
  table.push_back(make_smem_variant());          // 2_smem.cu
  table.push_back(make_warp_variant());          // 3_warp.cu
  table.push_back(make_welford_variant());       // 4_welford.cu
  table.push_back(make_register_row_variant());  // 5_register_row.cu
  table.push_back(make_cudnn_variant());         // 6_cudnn.cpp
  return table;
}

}  // namespace nb::layernorm_rows
