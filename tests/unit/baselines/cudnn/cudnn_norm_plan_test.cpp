// cuDNN row-norm baselines without a device: which tensors each graph passes, how a row tensor
// (M, N) is described to cuDNN (dims, strides that address exactly the harness's row-major
// buffers, data types, eps by value), the plan keys of problems, and the plan cache's memory of
// built plans and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "baselines/cudnn/norm_cudnn.hpp"
#include "baselines/cudnn/norm_cudnn_variant.hpp"
#include "baselines/cudnn/plan_cache.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

using T = RowNormTensor;
using cudnn_backend::TensorPassing;
using cudnn_backend::TensorSpec;

constexpr RowNormGraph kGraphs[] = {RowNormGraph::rms_forward, RowNormGraph::layer_forward, RowNormGraph::rms_backward,
                                    RowNormGraph::layer_backward};

TEST(CudnnRowNorm, EachGraphPassesTheTensorsOfItsModeAndPhase) {
  EXPECT_EQ(row_norm_tensors(RowNormGraph::rms_forward, false), (std::vector<T>{T::x, T::scale, T::epsilon, T::y}));
  EXPECT_EQ(row_norm_tensors(RowNormGraph::rms_forward, true),
            (std::vector<T>{T::x, T::scale, T::epsilon, T::inv_variance, T::y}));
  EXPECT_EQ(row_norm_tensors(RowNormGraph::layer_forward, true),
            (std::vector<T>{T::x, T::scale, T::bias, T::epsilon, T::mean, T::inv_variance, T::y}));
  EXPECT_EQ(row_norm_tensors(RowNormGraph::rms_backward, false),
            (std::vector<T>{T::x, T::scale, T::inv_variance, T::dy, T::dx, T::dscale}));
  EXPECT_EQ(row_norm_tensors(RowNormGraph::layer_backward, false),
            (std::vector<T>{T::x, T::scale, T::mean, T::inv_variance, T::dy, T::dx, T::dscale, T::dbias}));
  for (RowNormGraph g : kGraphs)
    for (bool training : {false, true}) {
      const std::vector<T> tensors = row_norm_tensors(g, training);
      EXPECT_TRUE(std::is_sorted(tensors.begin(), tensors.end())) << row_norm_graph_name(g) << ": uid order";
      EXPECT_EQ(std::set<T>(tensors.begin(), tensors.end()).size(), tensors.size()) << row_norm_graph_name(g);
    }
}

// Offsets of every element of the spec's dims, through its strides.
std::vector<std::int64_t> offsets(const TensorSpec& s) {
  std::vector<std::int64_t> out;
  std::vector<std::int64_t> idx(s.dims.size(), 0);
  for (;;) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * s.strides[d];
    out.push_back(off);
    std::size_t d = idx.size();
    while (d > 0 && ++idx[d - 1] == s.dims[d - 1]) idx[--d] = 0;
    if (d == 0) return out;
  }
}

TEST(CudnnRowNorm, RowTensorsAreMByNRowMajorNormalizedOverN) {
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {7, 3}, {5, 33}, {4, 4096}}) {
    SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n));
    for (T t : {T::x, T::y, T::dy, T::dx}) {
      const TensorSpec s = row_norm_tensor_spec(t, m, n, DType::bf16);
      EXPECT_EQ(s.uid, static_cast<std::int64_t>(t));
      EXPECT_EQ(s.dims, (std::vector<std::int64_t>{m, n, 1, 1})) << row_norm_tensor_name(t);
      EXPECT_EQ(s.dtype, CUDNN_DATA_BFLOAT16);
      EXPECT_EQ(s.passing, TensorPassing::device);
      // Element (i, j, 0, 0) is at i*N + j: the harness's row-major (M, N) buffer, packed.
      const std::vector<std::int64_t> off = offsets(s);
      ASSERT_EQ(off.size(), std::size_t(m * n));
      for (std::int64_t k = 0; k < m * n; ++k) EXPECT_EQ(off[std::size_t(k)], k);
    }
    for (T t : {T::scale, T::bias, T::dscale, T::dbias}) {
      const TensorSpec s = row_norm_tensor_spec(t, m, n, DType::f16);
      EXPECT_EQ(s.dims, (std::vector<std::int64_t>{1, n, 1, 1})) << row_norm_tensor_name(t);
      EXPECT_EQ(s.dtype, CUDNN_DATA_HALF);
      const std::vector<std::int64_t> off = offsets(s);
      for (std::int64_t k = 0; k < n; ++k) EXPECT_EQ(off[std::size_t(k)], k);
    }
    for (T t : {T::mean, T::inv_variance}) {  // fp32 whatever the storage, one per row
      const TensorSpec s = row_norm_tensor_spec(t, m, n, DType::bf16);
      EXPECT_EQ(s.dims, (std::vector<std::int64_t>{m, 1, 1, 1})) << row_norm_tensor_name(t);
      EXPECT_EQ(s.dtype, CUDNN_DATA_FLOAT);
      EXPECT_EQ(s.passing, TensorPassing::device);
      const std::vector<std::int64_t> off = offsets(s);
      for (std::int64_t k = 0; k < m; ++k) EXPECT_EQ(off[std::size_t(k)], k);
    }
    const TensorSpec eps = row_norm_tensor_spec(T::epsilon, m, n, DType::f16);
    EXPECT_EQ(eps.dims, (std::vector<std::int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(eps.strides, (std::vector<std::int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(eps.dtype, CUDNN_DATA_FLOAT);
    EXPECT_EQ(eps.passing, TensorPassing::by_value);
  }
}

TEST(CudnnRowNorm, StorageTypesMapToCudnnDataTypes) {
  EXPECT_EQ(cudnn_data_type(DType::f32), CUDNN_DATA_FLOAT);
  EXPECT_EQ(cudnn_data_type(DType::bf16), CUDNN_DATA_BFLOAT16);
  EXPECT_EQ(cudnn_data_type(DType::f16), CUDNN_DATA_HALF);
  EXPECT_THROW(cudnn_data_type(DType::tf32), UsageError);
  EXPECT_EQ(row_norm_tensor_spec(T::x, 2, 8, DType::f32).dtype, CUDNN_DATA_FLOAT);
}

TEST(CudnnRowNorm, PlanKeyIsGraphShapeAndStorage) {
  Problem p;
  p.op = "rmsnorm_rows";
  p.params = Params{{"m", 7}, {"n", 1000}, {"eps", 1e-5}};
  p.dtype = DType::tf32;  // fp32 storage
  const RowNormShape s = row_norm_shape_of(RowNormGraph::layer_backward, p);
  EXPECT_EQ(s.graph, RowNormGraph::layer_backward);
  EXPECT_EQ(s.m, 7);
  EXPECT_EQ(s.n, 1000);
  EXPECT_EQ(s.storage, DType::f32);
  EXPECT_EQ(s.describe(), "layer_backward M=7 N=1000 fp32");
  p.dtype = DType::bf16;
  const RowNormShape narrow = row_norm_shape_of(RowNormGraph::layer_backward, p);
  EXPECT_EQ(narrow.storage, DType::bf16);
  EXPECT_TRUE(s < narrow || narrow < s) << "a dtype is a plan of its own";
  const RowNormShape other_graph = row_norm_shape_of(RowNormGraph::rms_backward, p);
  EXPECT_TRUE(other_graph < narrow || narrow < other_graph);
}

struct FakePlan {
  int id;
};

TEST(CudnnPlanCache, BuildsEachKeyOnceAndRemembersRefusalsWithTheirStatus) {
  cudnn_backend::PlanCache<int, FakePlan> cache;
  int builds = 0;
  const auto build_ok = [&builds] {
    ++builds;
    return std::make_unique<FakePlan>(FakePlan{builds});
  };
  const auto refuse = [&builds]() -> std::unique_ptr<FakePlan> {
    ++builds;
    throw Unsupported("cuDNN: CUDNN_STATUS_NOT_SUPPORTED: no engine");
  };
  EXPECT_EQ(cache.find(1), nullptr);
  EXPECT_EQ(cache.get(1, build_ok).id, 1);
  EXPECT_EQ(cache.get(1, build_ok).id, 1) << "a built plan is reused";
  EXPECT_EQ(builds, 1);
  ASSERT_NE(cache.find(1), nullptr);

  EXPECT_THROW(cache.get(2, refuse), Unsupported);
  EXPECT_EQ(builds, 2);
  ASSERT_NE(cache.refusal(2), nullptr);
  EXPECT_EQ(*cache.refusal(2), "cuDNN: CUDNN_STATUS_NOT_SUPPORTED: no engine");
  try {
    cache.get(2, build_ok);
    FAIL() << "a remembered refusal must be thrown again";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()), "cuDNN: CUDNN_STATUS_NOT_SUPPORTED: no engine");
  }
  EXPECT_EQ(builds, 2) << "a refused key is not planned again";
  EXPECT_EQ(cache.find(2), nullptr);
  EXPECT_EQ(cache.refusal(1), nullptr);
}

}  // namespace
}  // namespace nb
