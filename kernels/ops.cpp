#include "kernels/ops.hpp"

namespace nb {

std::vector<std::unique_ptr<OpSpec>> make_ops() {
  std::vector<std::unique_ptr<OpSpec>> ops;
  ops.push_back(make_rmsnorm_nchw_op());
  ops.push_back(make_rmsnorm_rows_op());
  ops.push_back(make_layernorm_rows_op());
  ops.push_back(make_rmsnorm_rows_bwd_op());
  ops.push_back(make_layernorm_rows_bwd_op());
  ops.push_back(make_batchnorm_train_op());
  ops.push_back(make_batchnorm_bwd_op());
  ops.push_back(make_groupnorm_op());
  ops.push_back(make_softmax_op());
  ops.push_back(make_min_dim1_op());
  ops.push_back(make_gemm_scale_bn_op());
  ops.push_back(make_gemm_scale_bn_bwd_op());
  ops.push_back(make_gemm_gn_min_bias_op());
  ops.push_back(make_gemm_bn_scale_softmax_op());
  return ops;
}

}  // namespace nb
