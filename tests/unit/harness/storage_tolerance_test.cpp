// What storing an output in bf16 or fp16 adds to its tolerance (harness/tolerance.*): the
// rounding bounds per storage type, how they add to the compute bound (unscaled by the
// condition), the fp16 subnormal allowance in compare_tensor, and that trial_tolerances gives
// each tensor the rounding of its own storage.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "harness/narrow_float.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/trial_tolerance.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

TEST(StorageRounding, BoundsFollowTheUnitRoundoff) {
  const Tolerance bf16 = storage_rounding(DType::bf16);
  EXPECT_DOUBLE_EQ(bf16.normwise, 1.25 * 0x1p-8);
  EXPECT_DOUBLE_EQ(bf16.elementwise, 4 * 0x1p-8);
  EXPECT_EQ(bf16.floor_fraction, 0.0);
  EXPECT_EQ(bf16.absolute, 0.0);
  const Tolerance fp16 = storage_rounding(DType::f16);
  EXPECT_DOUBLE_EQ(fp16.normwise, 1.25 * 0x1p-11);
  EXPECT_DOUBLE_EQ(fp16.elementwise, 4 * 0x1p-11);
  EXPECT_DOUBLE_EQ(fp16.absolute, 0x1p-25);  // half the spacing of fp16's subnormals
  for (DType t : {DType::f32, DType::tf32}) {
    const Tolerance none = storage_rounding(t);
    EXPECT_EQ(none.normwise + none.elementwise + none.floor_fraction + none.absolute, 0.0) << dtype_name(t);
  }
}

TEST(StorageRounding, AddsToTheComputeBoundAndIsNotScaledByTheCondition) {
  const Tolerance compute = default_tolerance(DType::bf16);
  const Tolerance rounding = storage_rounding(DType::f16);
  const Tolerance sum = plus_rounding(compute.scaled(50), rounding);
  EXPECT_DOUBLE_EQ(sum.normwise, 50 * compute.normwise + rounding.normwise);
  EXPECT_DOUBLE_EQ(sum.elementwise, 50 * compute.elementwise + rounding.elementwise);
  EXPECT_EQ(sum.floor_fraction, compute.floor_fraction);
  EXPECT_EQ(sum.absolute, rounding.absolute);
  EXPECT_EQ(sum.scaled(1e3).absolute, rounding.absolute) << "an absolute allowance is not a relative error";
}

// Outputs of ~2.5e-6 (softmax over 393216 elements) lie among fp16's subnormals, 2^-24 = 6e-8
// apart: correct rounding misses them by up to 3e-8, 1.2% of each, which neither relative bound
// allows. The allowance of half the spacing takes exactly that, and no more.
TEST(StorageRounding, SubnormalAllowanceTakesFp16RoundingOfTinyOutputs) {
  std::vector<double> ref(4096);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = 2.5e-6 * (1.0 + 0.3 * std::sin(0.7 * static_cast<double>(i)));
  std::vector<float> stored(ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) stored[i] = round_to_storage(static_cast<float>(ref[i]), DType::f16);

  const Tolerance bound = plus_rounding(default_tolerance(DType::f16), storage_rounding(DType::f16));
  Tolerance without = bound;
  without.absolute = 0;
  const TensorErrors strict = compare_tensor("y", stored, ref, without);
  EXPECT_FALSE(tensor_failure(strict, without).empty()) << "the rounding alone fails without the allowance";
  EXPECT_GT(strict.elementwise, 0.005);

  const TensorErrors allowed = compare_tensor("y", stored, ref, bound);
  EXPECT_EQ(tensor_failure(allowed, bound), "");
  EXPECT_LT(allowed.elementwise, 1e-6);

  std::vector<float> off = stored;
  off[100] = static_cast<float>(ref[100] + 3 * 0x1p-25);  // three times the allowance away
  const TensorErrors wrong = compare_tensor("y", off, ref, bound);
  EXPECT_NE(tensor_failure(wrong, bound).find("elementwise"), std::string::npos) << tensor_failure(wrong, bound);
  EXPECT_EQ(wrong.worst_index, 100);
}

// The allowance is subtracted from each element's error before both measures: an all-zero output
// of tiny values still fails, with normwise error close to 1.
TEST(StorageRounding, AllowanceDoesNotLetZerosPass) {
  std::vector<double> ref(1024, 1e-6);
  const std::vector<float> zeros(ref.size(), 0.0f);
  const Tolerance bound = plus_rounding(default_tolerance(DType::f16), storage_rounding(DType::f16));
  const TensorErrors e = compare_tensor("y", zeros, ref, bound);
  EXPECT_NEAR(e.normwise, 1.0 - 0x1p-25 / 1e-6, 1e-9);
  EXPECT_FALSE(tensor_failure(e, bound).empty());
}

// A bf16 problem's tensors are bf16 (x, w, y): each gets the fp32 bound scaled by the reduction
// growth, plus bf16's rounding.
TEST(StorageRounding, TrialTolerancesAddEachTensorsOwnStorage) {
  const auto op = make_rmsnorm_rows_op();
  const Problem p = op->make_problem({{"m", 4}, {"n", 8192}}, DType::bf16);
  const auto decls = op->tensors(p);
  for (const TensorDecl& d : decls) EXPECT_EQ(d.dtype, DType::bf16) << d.name;
  HostTensors in = allocate_host_inputs(decls);
  draw_stored_inputs(*op, p, decls, Distribution::normal, 1, in);
  ReferenceTensors ref = allocate_references(decls);
  op->reference(p, in, ref);
  const TrialTolerances t = trial_tolerances(*op, p, decls, in, ref);
  const double growth = reduction_growth(8192);  // sqrt(8192) / 8 = 11.3
  const Tolerance y = t.per_tensor.at(2);
  EXPECT_DOUBLE_EQ(y.normwise, 1e-5 * growth + 1.25 * 0x1p-8);
  EXPECT_DOUBLE_EQ(y.elementwise, 1e-4 * growth + 4 * 0x1p-8);
  EXPECT_EQ(y.absolute, 0.0);

  const Problem fp32 = op->make_problem({{"m", 4}, {"n", 8192}});
  const auto fp32_decls = op->tensors(fp32);
  for (const TensorDecl& d : fp32_decls) EXPECT_EQ(d.dtype, DType::f32) << d.name;
  const TrialTolerances t32 = trial_tolerances(*op, fp32, fp32_decls, in, ref);
  EXPECT_DOUBLE_EQ(t32.per_tensor.at(2).normwise, 1e-5 * growth);
}

// A tf32 pipeline problem's bound adds the operand rounding, 1.5 u_tf32 (ten times that
// elementwise) per unit of each tensor's amplification, to fp32's condition-scaled bound; an fp32
// problem of the same shape applies no amplification, whatever the reference reports.
TEST(OperandRounding, AddsToTheTf32BoundPerUnitOfAmplificationOnly) {
  const auto op = make_gemm_scale_bn_op();
  const Params params{{"m", 8}, {"n", 16}, {"k", 32}};
  const Problem tf32 = op->make_problem(params, DType::tf32), fp32 = op->make_problem(params, DType::f32);
  const auto decls = op->tensors(tf32);
  ReferenceConditions c;
  c.instance = 3;
  c.operand_amplification.assign(decls.size(), 0.0);
  c.operand_amplification[8] = 2.0;  // y
  const double growth = reduction_growth(op->reduction_length(tf32));
  EXPECT_EQ(op->reduction_length(tf32), op->reduction_length(fp32));
  const TrialTolerances t = trial_tolerances(*op, tf32, decls, c);
  EXPECT_DOUBLE_EQ(t.per_tensor.at(8).normwise, 1e-5 * 3 * growth + 1.5 * 0x1p-11 * 2.0);
  EXPECT_DOUBLE_EQ(t.per_tensor.at(8).elementwise, 1e-4 * 3 * growth + 15 * 0x1p-11 * 2.0);
  EXPECT_DOUBLE_EQ(t.per_tensor.at(9).normwise, 1e-5 * 3 * growth);  // save_mean: no amplification given
  EXPECT_DOUBLE_EQ(t.worst_amplification, 2.0);
  const TrialTolerances f = trial_tolerances(*op, fp32, decls, c);
  EXPECT_DOUBLE_EQ(f.per_tensor.at(8).normwise, 1e-5 * 3 * growth);
  EXPECT_DOUBLE_EQ(f.worst_amplification, 0.0);
}

}  // namespace
}  // namespace nb
