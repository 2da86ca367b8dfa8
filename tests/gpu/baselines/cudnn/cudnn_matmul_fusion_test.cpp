// Does cuDNN's runtime fusion run matmul + bias + scale + column sums in one plan? The probe's
// output (one line per rung, printed to stdout) is the finding; docs/cudnn-matmul-fusion.md says
// how to read it. Where a plan with the bias+scale epilogue exists, it is checked against a
// float64 CPU computation on zero-mean data (where TF32 products are visible: a normwise error of
// about 3e-4 to 1e-3, against about 1e-7 for IEEE fp32).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "baselines/cudnn/matmul_fusion_cudnn.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/device_buffer.hpp"
#include "harness/distribution.hpp"
#include "harness/errors.hpp"
#include "harness/library_check.hpp"

namespace nb {
namespace {

using test::normwise;

// A cuDNN handle for the test (the baselines each own theirs; this one is borrowed by the class).
struct CudnnHandle {
  cudnnHandle_t h = nullptr;
  CudnnHandle() { NB_CUDNN_CHECK(cudnnCreate(&h)); }
  ~CudnnHandle() { cudnnDestroy(h); }
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
};

const char* precision(bool allow_tf32) { return cudnn_backend::operand_precision(false, allow_tf32); }
const char* precision(const MatmulFusionShape& s) { return cudnn_backend::operand_precision(s.bf16_operands, s.allow_tf32); }

TEST(CudnnMatmulFusion, ProbeReportsEveryRung) {
  CudnnHandle handle;
  int major = 0, minor = 0, sm = 0;
  int device = 0;
  NB_CUDA_CHECK(cudaGetDevice(&device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, device));
  std::printf("[cudnn-matmul-fusion] cuDNN %zu (headers %d), sm_%d%d, %d SMs\n", cudnnGetVersion(), CUDNN_VERSION,
              major, minor, sm);
  const MatmulFusionShape shapes[] = {{128, 512, 1024, false}, {1024, 8192, 8192, false}};
  for (const MatmulFusionShape& base : shapes) {
    for (int which = 0; which < 3; ++which) {  // fp32, tf32, bf16 operands
      MatmulFusionShape shape = base;
      shape.allow_tf32 = which == 1;
      shape.bf16_operands = which == 2;
      const MatmulFusionProbe probe = probe_matmul_fusion(handle.h, shape);
      std::printf("[cudnn-matmul-fusion] M=%d N=%d K=%d %s: best %s\n", shape.m, shape.n, shape.k, precision(shape),
                  probe.best ? matmul_fusion_level_name(*probe.best).c_str() : "none");
      for (const auto& [level, status] : probe.statuses)
        std::printf("[cudnn-matmul-fusion]   %-28s %s\n", matmul_fusion_level_name(level).c_str(), status.c_str());
      std::fflush(stdout);
      ASSERT_EQ(probe.statuses.size(), std::size(kMatmulFusionLadder));
      std::optional<MatmulFusionLevel> first_ok;
      for (std::size_t i = 0; i < probe.statuses.size(); ++i) {
        EXPECT_EQ(probe.statuses[i].first, kMatmulFusionLadder[i]);
        EXPECT_FALSE(probe.statuses[i].second.empty()) << matmul_fusion_level_name(probe.statuses[i].first);
        if (!first_ok && probe.statuses[i].second.rfind("ok (", 0) == 0) first_ok = probe.statuses[i].first;
      }
      EXPECT_EQ(probe.best, first_ok) << "best must be the first rung whose plan finalized";
    }
  }
}

void check_against_float64(bool allow_tf32) {
  const int m = 128, n = 512, k = 1024;
  CudnnHandle handle;
  std::unique_ptr<MatmulBiasScaleStats> op;
  try {
    op = std::make_unique<MatmulBiasScaleStats>(handle.h, MatmulFusionShape{m, n, k, allow_tf32});
  } catch (const Unsupported& e) {
    std::printf("[cudnn-matmul-fusion] MatmulBiasScaleStats %s: unsupported: %s\n", precision(allow_tf32), e.what());
    GTEST_SKIP() << e.what();
  }
  std::printf("[cudnn-matmul-fusion] MatmulBiasScaleStats M=%d N=%d K=%d %s: %s, %s\n", m, n, k,
              precision(allow_tf32), matmul_fusion_level_name(op->level()).c_str(), op->status().c_str());

  // Zero-mean operands: TF32 rounding then shows in the normwise error (positive data hides it).
  std::vector<float> x(std::size_t(m) * k), w(std::size_t(n) * k), bias(n), scale(n);
  draw_uniform(x, -1.f, 1.f, 7, 1);
  draw_uniform(w, -1.f, 1.f, 7, 2);
  draw_uniform(bias, -1.f, 1.f, 7, 3);
  draw_uniform(scale, 0.5f, 1.5f, 7, 4);

  std::vector<double> h_ref(std::size_t(m) * n), sum_ref(n, 0.0), sumsq_ref(n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double g = 0;
      for (int p = 0; p < k; ++p) g += double(x[std::size_t(i) * k + p]) * double(w[std::size_t(j) * k + p]);
      const double h = (g + double(bias[j])) * double(scale[j]);
      h_ref[std::size_t(i) * n + j] = h;
      sum_ref[j] += h;
      sumsq_ref[j] += h * h;
    }

  auto upload = [](const std::vector<float>& v) {
    DeviceBuffer b(v.size() * sizeof(float));
    NB_CUDA_CHECK(cudaMemcpy(b.get(), v.data(), b.bytes(), cudaMemcpyHostToDevice));
    return b;
  };
  DeviceBuffer dx = upload(x), dw = upload(w), db = upload(bias), ds = upload(scale);
  DeviceBuffer dh(h_ref.size() * sizeof(float)), dsum(n * sizeof(float)), dsumsq(n * sizeof(float));
  DeviceBuffer ws(op->workspace_bytes());
  cudaStream_t stream = nullptr;
  NB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  std::vector<float> h(h_ref.size()), sum(n), sumsq(n), sum2(n), sumsq2(n);
  for (int rep = 0; rep < 2; ++rep) {  // twice: the sums must not accumulate across runs
    poison_async(dh.get(), dh.bytes(), stream);
    poison_async(dsum.get(), dsum.bytes(), stream);
    poison_async(dsumsq.get(), dsumsq.bytes(), stream);
    op->run(stream, dx.as<float>(), dw.as<float>(), db.as<float>(), ds.as<float>(), dh.as<float>(),
            op->has_sum() ? dsum.as<float>() : nullptr, op->has_sumsq() ? dsumsq.as<float>() : nullptr, ws.get());
    NB_CUDA_CHECK(cudaStreamSynchronize(stream));
    NB_CUDA_CHECK(cudaMemcpy(h.data(), dh.get(), dh.bytes(), cudaMemcpyDeviceToHost));
    NB_CUDA_CHECK(cudaMemcpy(rep == 0 ? sum.data() : sum2.data(), dsum.get(), dsum.bytes(), cudaMemcpyDeviceToHost));
    NB_CUDA_CHECK(
        cudaMemcpy(rep == 0 ? sumsq.data() : sumsq2.data(), dsumsq.get(), dsumsq.bytes(), cudaMemcpyDeviceToHost));
  }
  NB_CUDA_CHECK(cudaStreamDestroy(stream));

  const double tol = allow_tf32 ? 5e-3 : 1e-4;
  const double err_h = normwise(h, h_ref);
  std::printf("[cudnn-matmul-fusion]   h normwise error %.3e (tolerance %.0e)\n", err_h, tol);
  EXPECT_LT(err_h, tol) << (allow_tf32 ? "" : "fp32 plan: an error near 1e-3 means TF32 products after all");
  if (op->has_sum()) {
    const double err = normwise(sum, sum_ref);
    std::printf("[cudnn-matmul-fusion]   column sum normwise error %.3e\n", err);
    EXPECT_LT(err, tol);
    EXPECT_LT(normwise(sum2, sum_ref), tol) << "second run differs: the sums accumulate across runs?";
  }
  if (op->has_sumsq()) {
    const double err = normwise(sumsq, sumsq_ref);
    std::printf("[cudnn-matmul-fusion]   column sum of squares normwise error %.3e\n", err);
    EXPECT_LT(err, tol);
    EXPECT_LT(normwise(sumsq2, sumsq_ref), tol) << "second run differs: the sums accumulate across runs?";
  }
  std::fflush(stdout);
}

TEST(CudnnMatmulFusion, Fp32PlanMatchesFloat64) { check_against_float64(false); }
TEST(CudnnMatmulFusion, Tf32PlanMatchesFloat64) { check_against_float64(true); }

}  // namespace
}  // namespace nb
