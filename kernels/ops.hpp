#pragma once
// The table of ops, in the order a reader should meet them.
#include <memory>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb {

std::vector<std::unique_ptr<OpSpec>> make_ops();

// One factory per op, each defined in kernels/<op>/spec.cpp.
std::unique_ptr<OpSpec> make_rmsnorm_nchw_op();
std::unique_ptr<OpSpec> make_rmsnorm_rows_op();
std::unique_ptr<OpSpec> make_layernorm_rows_op();
std::unique_ptr<OpSpec> make_rmsnorm_rows_bwd_op();
std::unique_ptr<OpSpec> make_layernorm_rows_bwd_op();
std::unique_ptr<OpSpec> make_batchnorm_train_op();
std::unique_ptr<OpSpec> make_batchnorm_bwd_op();
std::unique_ptr<OpSpec> make_groupnorm_op();
std::unique_ptr<OpSpec> make_softmax_op();
std::unique_ptr<OpSpec> make_min_dim1_op();
std::unique_ptr<OpSpec> make_gemm_scale_bn_op();
std::unique_ptr<OpSpec> make_gemm_scale_bn_bwd_op();
std::unique_ptr<OpSpec> make_gemm_gn_min_bias_op();
std::unique_ptr<OpSpec> make_gemm_bn_scale_softmax_op();

}  // namespace nb
