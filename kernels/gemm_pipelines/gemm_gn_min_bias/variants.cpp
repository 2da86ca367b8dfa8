// The gemm_gn_min_bias variant table, in the order a reader should meet them. Each factory is
// defined in its numbered file; a variant is that file, its declaration here and its line in the
// table.
#include <memory>
#include <vector>

#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"

namespace nb::gemm_gn_min_bias {

std::unique_ptr<Variant> make_naive_variant();           // 1_naive.cu
std::unique_ptr<Variant> make_unfused_variant();         // 2_unfused.cu
std::unique_ptr<Variant> make_lt_epilogue_variant();     // 3_lt_epilogue.cu
std::unique_ptr<Variant> make_fused_epilogue_variant();  // 4_fused_epilogue.cu
std::unique_ptr<Variant> make_single_launch_variant();   // 5_single_launch.cu
std::unique_ptr<Variant> make_wgmma_epilogue_variant();  // 6_wgmma_epilogue.cu

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> table;
  table.push_back(make_naive_variant());
  table.push_back(make_unfused_variant());
  table.push_back(make_lt_epilogue_variant());
  table.push_back(make_fused_epilogue_variant());
  table.push_back(make_single_launch_variant());
  table.push_back(make_wgmma_epilogue_variant());
  return table;
}

}  // namespace nb::gemm_gn_min_bias
