// The variant table of rmsnorm_rows_bwd, in the order a reader should meet them (the kernels are
// written once for both row backwards, in kernels/rows/rows_bwd/).
#include "kernels/rows/rows_bwd/rmsnorm_rows_bwd/spec.hpp"

namespace nb::rmsnorm_rows_bwd {

std::vector<std::unique_ptr<Variant>> make_variants() {
  std::vector<std::unique_ptr<Variant>> table;
  for (auto make : {rows_bwd::make_naive, rows_bwd::make_warp, rows_bwd::make_fused, rows_bwd::make_cudnn}) table.push_back(make(kLayout));
  return table;
}

}  // namespace nb::rmsnorm_rows_bwd
