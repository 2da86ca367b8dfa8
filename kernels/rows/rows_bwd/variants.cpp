// The row backwards' variant table, in the order a reader should meet them: rmsnorm_rows_bwd
// and layernorm_rows_bwd list it, each variant bound to the op's layout. Each factory is defined
// in its numbered file; a variant is that file, its declaration here and its line in the table.
#include <memory>
#include <vector>

#include "kernels/rows/rows_bwd/rows_bwd.hpp"

namespace nb::rows_bwd {

std::unique_ptr<Variant> make_naive_variant(const Layout& layout);  // 1_naive.cu
std::unique_ptr<Variant> make_warp_variant(const Layout& layout);   // 2_warp.cu
std::unique_ptr<Variant> make_fused_variant(const Layout& layout);  // 3_fused.cu
std::unique_ptr<Variant> make_fused_tma_variant(const Layout& layout);  // 5_fused_tma.cu
std::unique_ptr<Variant> make_cudnn_variant(const Layout& layout);  // 4_cudnn.cpp

std::vector<std::unique_ptr<Variant>> make_variants(const Layout& layout) {
  std::vector<std::unique_ptr<Variant>> table;
  table.push_back(make_naive_variant(layout));
  table.push_back(make_warp_variant(layout));
  table.push_back(make_fused_variant(layout));
  table.push_back(make_fused_tma_variant(layout));
  table.push_back(make_cudnn_variant(layout));
  return table;
}

}  // namespace nb::rows_bwd
