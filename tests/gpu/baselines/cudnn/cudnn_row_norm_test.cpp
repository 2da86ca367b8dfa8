// cuDNN's row LayerNorm and RMSNorm graphs (baselines/cudnn/norm_cudnn), forward and backward, in
// fp32 and bf16 on small shapes: each either plans, and then runs and matches a float64
// computation from the same (rounded) inputs, or is refused with cuDNN's status text, which the
// plan cache then gives again without planning. The statuses are printed: they are the finding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "baselines/cudnn/norm_cudnn.hpp"
#include "baselines/cudnn/plan_cache.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/device_buffer.hpp"
#include "harness/distribution.hpp"
#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"

namespace nb {
namespace {

using test::normwise;

// One device tensor of `storage` with its host values (exactly representable in it).
struct Stored {
  DType storage;
  std::vector<float> host;
  DeviceBuffer dev;

  Stored(std::vector<float> values, DType s) : storage(s), host(std::move(values)) {
    round_to_storage(host, storage);
    dev = DeviceBuffer(bytes());
    upload();
  }
  Stored(std::size_t n, DType s) : storage(s), host(n, 0.f), dev(bytes()) {}

  std::size_t bytes() const { return host.size() * dtype_size(storage); }
  void upload() {
    if (!is_narrow(storage)) {
      NB_CUDA_CHECK(cudaMemcpy(dev.get(), host.data(), bytes(), cudaMemcpyHostToDevice));
      return;
    }
    std::vector<std::uint16_t> bits(host.size());
    encode_narrow(host.data(), bits.data(), std::int64_t(host.size()), storage);
    NB_CUDA_CHECK(cudaMemcpy(dev.get(), bits.data(), bytes(), cudaMemcpyHostToDevice));
  }
  void download() {
    if (!is_narrow(storage)) {
      NB_CUDA_CHECK(cudaMemcpy(host.data(), dev.get(), bytes(), cudaMemcpyDeviceToHost));
      return;
    }
    std::vector<std::uint16_t> bits(host.size());
    NB_CUDA_CHECK(cudaMemcpy(bits.data(), dev.get(), bytes(), cudaMemcpyDeviceToHost));
    decode_narrow(bits.data(), host.data(), std::int64_t(host.size()), storage);
  }
  void poison(cudaStream_t stream) { poison_async(dev.get(), bytes(), stream, is_narrow(storage)); }
};

// The float64 statistics and gradients of one problem, from the rounded inputs.
struct Expected {
  std::vector<double> mean, rstd, y, dx, dw, db;
};

bool is_layer(RowNormGraph g) { return g == RowNormGraph::layer_forward || g == RowNormGraph::layer_backward; }

// Forward from x; backward from the fp32 statistics the backward graph is given (mean32, rstd32).
Expected float64_reference(RowNormGraph g, std::int64_t m, std::int64_t n, double eps, const std::vector<float>& x,
                           const std::vector<float>& w, const std::vector<float>& b, const std::vector<float>& dy,
                           const std::vector<float>& mean32, const std::vector<float>& rstd32) {
  Expected e;
  e.mean.assign(m, 0.0);
  e.rstd.assign(m, 0.0);
  e.y.assign(m * n, 0.0);
  e.dx.assign(m * n, 0.0);
  e.dw.assign(n, 0.0);
  e.db.assign(n, 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    const float* xr = &x[i * n];
    double mu = 0, ms = 0;
    if (is_layer(g))
      for (std::int64_t j = 0; j < n; ++j) mu += xr[j] / double(n);
    for (std::int64_t j = 0; j < n; ++j) ms += (xr[j] - mu) * (xr[j] - mu) / double(n);
    e.mean[i] = mu;
    e.rstd[i] = 1.0 / std::sqrt(ms + eps);
    for (std::int64_t j = 0; j < n; ++j)
      e.y[i * n + j] = (xr[j] - mu) * e.rstd[i] * w[j] + (is_layer(g) ? b[j] : 0.0);
    if (dy.empty()) continue;
    const double smu = is_layer(g) ? mean32[i] : 0.0, srstd = rstd32[i];
    double mean_g = 0, mean_gx = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double xhat = (xr[j] - smu) * srstd, gj = double(dy[i * n + j]) * w[j];
      mean_g += gj / double(n);
      mean_gx += gj * xhat / double(n);
      e.dw[j] += double(dy[i * n + j]) * xhat;
      e.db[j] += dy[i * n + j];
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const double xhat = (xr[j] - smu) * srstd, gj = double(dy[i * n + j]) * w[j];
      e.dx[i * n + j] = srstd * (gj - (is_layer(g) ? mean_g : 0.0) - xhat * mean_gx);
    }
  }
  return e;
}

struct Case {
  RowNormGraph graph;
  std::int64_t m, n;
  DType storage;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (RowNormGraph g : {RowNormGraph::rms_forward, RowNormGraph::layer_forward, RowNormGraph::rms_backward,
                         RowNormGraph::layer_backward})
    for (DType s : {DType::f32, DType::bf16})
      for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{7, 1000}, {5, 33}}) out.push_back({g, m, n, s});
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << RowNormShape{c.graph, c.m, c.n, c.storage}.describe(); }

class CudnnRowNorm : public testing::TestWithParam<Case> {};

// Plans the case (through a plan cache, as the variants do), runs it twice and compares.
TEST_P(CudnnRowNorm, PlansAndMatchesFloat64OrSaysWhyNot) {
  const Case c = GetParam();
  const RowNormShape shape{c.graph, c.m, c.n, c.storage};
  cudnn_backend::CudnnPlanCache<RowNormShape, RowNormPlan> plans;
  const auto build = [&shape](cudnnHandle_t h, const cudnn_backend::PlanCacheUse& cache) {
    return std::make_unique<RowNormPlan>(h, shape, cache);
  };
  const RowNormPlan* plan = nullptr;
  try {
    plan = &plans.prepare(shape, build);
  } catch (const Unsupported& e) {
    const std::string why = e.what();
    std::printf("[cudnn-row-norm] %s (cuDNN %zu): refused: %s\n", shape.describe().c_str(), cudnnGetVersion(),
                why.c_str());
    EXPECT_NE(why.find("CUDNN_STATUS"), std::string::npos) << "the refusal must carry cuDNN's status: " << why;
    ASSERT_NE(plans.refusal(shape), nullptr);
    try {
      plans.prepare(shape, build);
      ADD_FAILURE() << "a remembered refusal must be thrown again";
    } catch (const Unsupported& again) {
      EXPECT_EQ(std::string(again.what()), why);
    }
    return;
  }
  std::printf("[cudnn-row-norm] %s (cuDNN %zu): %s, workspace %zu B\n", shape.describe().c_str(), cudnnGetVersion(),
              plan->status().c_str(), plan->workspace_bytes());
  EXPECT_NE(plan->status().find("ok ("), std::string::npos) << plan->status();

  const std::int64_t m = c.m, n = c.n;
  const double eps = 1e-5;
  const bool backward = c.graph == RowNormGraph::rms_backward || c.graph == RowNormGraph::layer_backward;
  std::vector<float> xv(m * n), wv(n), bv(n), dyv(backward ? m * n : 0);
  draw(xv, Distribution::normal, 11, 1, c.storage);
  draw_uniform(wv, 0.5f, 1.5f, 11, 2);
  draw_uniform(bv, -1.f, 1.f, 11, 3);
  if (backward) draw_uniform(dyv, -1.f, 1.f, 11, 4);
  Stored x(xv, c.storage), w(wv, c.storage), b(bv, c.storage), dy(backward ? dyv : std::vector<float>(1), c.storage);
  // The statistics a forward run saves: the backward graphs read them (fp32), as the ops give them.
  const Expected fwd = float64_reference(c.graph, m, n, eps, x.host, w.host, b.host, {}, {}, {});
  std::vector<float> mean32(fwd.mean.begin(), fwd.mean.end()), rstd32(fwd.rstd.begin(), fwd.rstd.end());
  Stored mean(backward ? mean32 : std::vector<float>(m), DType::f32);
  Stored rstd(backward ? rstd32 : std::vector<float>(m), DType::f32);
  Stored y(m * n, c.storage), dx(m * n, c.storage), dw(n, c.storage), db(n, c.storage);
  const std::vector<float> no_dy;
  const Expected ref =
      float64_reference(c.graph, m, n, eps, x.host, w.host, b.host, backward ? dy.host : no_dy, mean32, rstd32);

  RowNormArgs a;
  a.x = x.dev.get();
  a.scale = w.dev.get();
  a.bias = b.dev.get();
  a.dy = dy.dev.get();
  a.mean = mean.dev.as<float>();
  a.rstd = rstd.dev.as<float>();
  a.y = y.dev.get();
  a.dx = dx.dev.get();
  a.dscale = dw.dev.get();
  a.dbias = db.dev.get();
  a.eps = float(eps);
  DeviceBuffer workspace(plan->workspace_bytes());
  cudaStream_t stream = nullptr;
  NB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int rep = 0; rep < 2; ++rep) {  // twice: gradients must not accumulate across runs
    for (Stored* out : {&y, &dx, &dw, &db}) out->poison(stream);
    if (c.graph == RowNormGraph::layer_forward) {
      mean.poison(stream);
      rstd.poison(stream);
    }
    plan->run(stream, a, workspace.get());
    NB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  NB_CUDA_CHECK(cudaStreamDestroy(stream));

  // fp32: a few ulps over the row; bf16: the rounding of each output to 8 bits, with room.
  const double tol = is_narrow(c.storage) ? 1e-2 : 1e-5;
  const auto check = [&](const char* name, Stored& got, const std::vector<double>& want) {
    got.download();
    const double err = normwise(got.host, want);
    std::printf("[cudnn-row-norm]   %s normwise error %.3e (tolerance %.0e)\n", name, err, tol);
    EXPECT_LT(err, tol) << name;  // NaN (an unwritten, poisoned element) fails too
  };
  if (!backward) check("y", y, ref.y);
  if (c.graph == RowNormGraph::layer_forward) {
    check("mean", mean, ref.mean);
    check("rstd", rstd, ref.rstd);
  }
  if (backward) {
    check("dx", dx, ref.dx);
    check("dw", dw, ref.dw);
  }
  if (c.graph == RowNormGraph::layer_backward) check("db", db, ref.db);
  std::fflush(stdout);
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return row_norm_graph_name(c.graph) + "_m" + std::to_string(c.m) + "_n" + std::to_string(c.n) + "_" +
         dtype_name(c.storage);
}

INSTANTIATE_TEST_SUITE_P(Graphs, CudnnRowNorm, testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace nb
