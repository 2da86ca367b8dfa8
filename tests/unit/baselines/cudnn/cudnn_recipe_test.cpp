// A cuDNN descriptor's recipe, the plan cache's key of a graph: the same for the same graph in
// every process, different when any attribute of any part differs, blind to handles and pointers.
// Descriptors are created and finalized on the host; without a usable cuDNN the tests skip.
#include <gtest/gtest.h>

#include "baselines/cudnn/graph_plan.hpp"
#include "baselines/cudnn/norm_cudnn.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

using namespace cudnn_backend;

// The recipe of a row norm's NORM_FORWARD operation over (m, n) in `storage`.
std::string forward_recipe(std::int64_t m, std::int64_t n, DType storage, std::int64_t scale_uid = 2) {
  using T = RowNormTensor;
  auto spec = [&](T t) { return row_norm_tensor_spec(t, m, n, storage); };
  TensorSpec scale = spec(T::scale);
  scale.uid = scale_uid;
  const DescPtr x = tensor(spec(T::x)), w = tensor(scale), e = tensor(spec(T::epsilon)), y = tensor(spec(T::y));
  NormForwardTensors t;
  t.x = x.get(), t.scale = w.get(), t.epsilon = e.get(), t.y = y.get();
  return norm_forward_op(CUDNN_RMS_NORM, CUDNN_NORM_FWD_INFERENCE, t)->recipe();
}

class CudnnRecipe : public testing::Test {
 protected:
  void SetUp() override {
    try {
      Descriptor probe(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    } catch (const std::exception& e) {
      GTEST_SKIP() << "no usable cuDNN on this host: " << e.what();
    }
  }
};

TEST_F(CudnnRecipe, TheSameGraphGivesTheSameRecipe) {
  const std::string a = forward_recipe(7, 1000, DType::bf16);
  EXPECT_EQ(a, forward_recipe(7, 1000, DType::bf16));
  EXPECT_NE(a.find("d" + std::to_string(int(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR)) + "{"), std::string::npos);
  EXPECT_NE(a.find("d" + std::to_string(int(CUDNN_BACKEND_TENSOR_DESCRIPTOR)) + "{"), std::string::npos)
      << "the operation's recipe holds its tensors' recipes: " << a;
}

TEST_F(CudnnRecipe, AnyAttributeOfAnyPartChangesIt) {
  const std::string a = forward_recipe(7, 1000, DType::bf16);
  EXPECT_NE(a, forward_recipe(8, 1000, DType::bf16)) << "rows";
  EXPECT_NE(a, forward_recipe(7, 1001, DType::bf16)) << "row length";
  EXPECT_NE(a, forward_recipe(7, 1000, DType::f16)) << "storage";
  EXPECT_NE(a, forward_recipe(7, 1000, DType::bf16, 20)) << "a tensor's unique id";
}

TEST_F(CudnnRecipe, HandlesAndPointersAreLeftOutAndLongValuesDigested) {
  Descriptor pack_a(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR), pack_b(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  int here = 0, there = 0;
  void* a = &here;
  void* b = &there;
  pack_a.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &a);
  pack_b.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &b);
  EXPECT_EQ(pack_a.recipe(), pack_b.recipe());
  const std::string long_text(1000, 'x');
  Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  plan.set(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, long_text.data(), int64_t(long_text.size()));
  EXPECT_NE(plan.recipe().find("sha256:"), std::string::npos);
  EXPECT_LT(plan.recipe().size(), 200u);
}

TEST_F(CudnnRecipe, RawDescriptorValuesAreRefusedSoNoPartGoesUndescribed) {
  Descriptor op(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  const DescPtr x = tensor(row_norm_tensor_spec(RowNormTensor::x, 2, 8, DType::f32));
  cudnnBackendDescriptor_t raw = x->get();
  EXPECT_THROW(op.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &raw), UsageError);
}

}  // namespace
}  // namespace nb
