// The BatchNorm pipelines' variant table, in the order a reader should meet them: gemm_scale_bn
// and gemm_bn_scale_softmax list it, each variant bound to the op's tail. Each factory is defined
// in its numbered file; a variant is that file, its declaration here and its line in the table.
#include <memory>
#include <vector>

#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"

namespace nb::gemm_bn {

std::unique_ptr<Variant> make_naive_variant(BnTail tail);           // 1_naive.cu
std::unique_ptr<Variant> make_unfused_variant(BnTail tail);         // 2_unfused.cu
std::unique_ptr<Variant> make_lt_epilogue_variant(BnTail tail);     // 3_lt_epilogue.cu
std::unique_ptr<Variant> make_fused_epilogue_variant(BnTail tail);  // 4_fused_epilogue.cu
std::unique_ptr<Variant> make_single_launch_variant(BnTail tail);   // 5_single_launch.cu
std::unique_ptr<Variant> make_cudnn_variant(BnTail tail);           // 6_cudnn.cu
std::unique_ptr<Variant> make_wgmma_epilogue_variant(BnTail tail);  // 7_wgmma_epilogue.cu
std::unique_ptr<Variant> make_wgmma_whole_columns_variant(BnTail tail);  // 8_wgmma_whole_columns.cu

std::vector<std::unique_ptr<Variant>> make_variants(BnTail tail) {
  std::vector<std::unique_ptr<Variant>> table;
  table.push_back(make_naive_variant(tail));
  table.push_back(make_unfused_variant(tail));
  table.push_back(make_lt_epilogue_variant(tail));
  table.push_back(make_fused_epilogue_variant(tail));
  table.push_back(make_single_launch_variant(tail));
  table.push_back(make_cudnn_variant(tail));
  table.push_back(make_wgmma_epilogue_variant(tail));
  table.push_back(make_wgmma_whole_columns_variant(tail));
  return table;
}

}  // namespace nb::gemm_bn
