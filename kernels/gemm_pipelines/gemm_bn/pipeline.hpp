#pragma once
// The two GEMM + BatchNorm pipelines share everything up to the batch statistics:
//   gemm_scale_bn (L2#33, #39):        y = bn_train((x W^T + b) * s), s per column;
//   gemm_bn_scale_softmax (L2#84):     y = softmax(s * bn_train(x W^T + b), dim=1), s a scalar.
// Their tensors are declared in one order, and each variant is written once for both, the
// pipeline's tail (normalize, or scale + row softmax) chosen by BnTail.
#include <memory>
#include <vector>

#include "harness/op_spec.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm_pipelines/bn_column_args.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"

namespace nb::gemm_bn {

enum class BnTail { normalize, scale_softmax };

// kScale is (N) for the normalize tail (before BN) and (1) for scale_softmax (after BN).
enum Tensor : int {
  kX, kWeight, kBias, kScale, kGamma, kBeta, kRunningMean, kRunningVar, kY, kSaveMean, kSaveInvstd, kTensorCount
};

struct Args {
  gemm::Operands op;
  const float* bias;
  const float* column_scale;  // s per column before BN (normalize tail), else null
  const float* post_scale;    // the scalar s after BN (scale_softmax tail), else null
  linear::dev::BnColumnArgs bn;
  float* y;
  int m, n;
  bool tf32;
  BnTail tail;
  linear::Bf16Linear bf16{};  // a bf16 problem's x, W and b (op and bias are null then)
};

Args args_of(BnTail tail, const Problem& p, const DeviceTensors& t);

// The last pass, in place in y (holding g or h): y = h * scale + shift (normalize), or the row
// softmax of it (scale_softmax), with the affine of the committed statistics (tail.cu).
void finish_in_place(const Args& a, const float* affine, cudaStream_t stream);

// After a GEMM whose ColumnStatsEpilogue stored h in y and one Welford partial per column and M
// tile at the workspace's start (fused_epilogue, wgmma_epilogue): the Chan merge and commit into
// the affine that follows the partials, then the last pass (tail.cu). The workspace it needs:
std::size_t column_stats_workspace(int tiles_m, int n);
void finish_from_column_partials(const Args& a, void* workspace, int tiles_m, cudaStream_t stream);

// The variant table: one numbered file per variant, every one for both tails.
std::vector<std::unique_ptr<Variant>> make_variants(BnTail tail);  // variants.cpp

// How Eigen audits the device reference: by columns; by rows too, the column statistics given, for
// the softmax tail (slices.cpp).
std::vector<SliceFamily> slice_families(const OpSpec& op, BnTail tail, const Problem& p);

std::unique_ptr<OpSpec> make_op(BnTail tail, std::string name, std::string formula,
                                std::vector<NamedProblem> problems);  // op.cpp

}  // namespace nb::gemm_bn
