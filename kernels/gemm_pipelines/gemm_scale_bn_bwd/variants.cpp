// The gemm_scale_bn_bwd variant table, in the order a reader should meet them. Each factory is
// defined in its numbered file; a variant is that file, its declaration here and its line in the
// table.
#include <memory>
#include <vector>

#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"

namespace nb::gemm_scale_bn_bwd {

std::unique_ptr<Variant> make_naive_variant();             // 1_naive.cu
std::unique_ptr<Variant> make_unfused_variant();           // 2_unfused.cu
std::unique_ptr<Variant> make_sums_then_cublas_variant();  // 3_sums_then_cublas.cu
std::unique_ptr<Variant> make_both_layouts_variant();      // 4_both_layouts.cu
std::unique_ptr<Variant> make_fused_prologue_variant();    // 5_fused_prologue.cu
std::unique_ptr<Variant> make_cudnn_variant();             // 6_cudnn.cu

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> table;
  table.push_back(make_naive_variant());
  table.push_back(make_unfused_variant());
  table.push_back(make_sums_then_cublas_variant());
  table.push_back(make_both_layouts_variant());
  table.push_back(make_fused_prologue_variant());
  table.push_back(make_cudnn_variant());
  return table;
}

}  // namespace nb::gemm_scale_bn_bwd
