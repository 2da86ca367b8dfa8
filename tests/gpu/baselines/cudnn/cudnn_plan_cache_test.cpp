// The cuDNN plan cache across processes, as a later process meets it: a plan built and kept by one
// plan cache (one handle) is loaded by a fresh one (a second handle) without a search, runs, and
// gives the outputs of the plan that was built; a corrupt file, or one whose plan cuDNN refuses,
// is a warning and a rebuild that replaces it. Each test has a folder of its own. The lines
// printed ([cudnn-plan-cache]) say what each plan took to build and to load: whether loading a
// runtime-compiled plan skips its compilation is read there (docs/cudnn-plan-cache.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "temp_folder.hpp"
#include "baselines/cudnn/matmul_fusion_cudnn.hpp"
#include "baselines/cudnn/norm_cudnn.hpp"
#include "baselines/cudnn/plan_cache.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/distribution.hpp"
#include "harness/errors.hpp"
#include "harness/plan_cache/plan_record.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;
using cudnn_backend::CudnnPlanCache;
using cudnn_backend::PlanCacheUse;

DeviceBuffer upload(const std::vector<float>& v) {
  DeviceBuffer b(v.size() * sizeof(float));
  NB_CUDA_CHECK(cudaMemcpy(b.get(), v.data(), b.bytes(), cudaMemcpyHostToDevice));
  return b;
}

std::vector<float> download(const DeviceBuffer& b) {
  std::vector<float> v(b.bytes() / sizeof(float));
  NB_CUDA_CHECK(cudaMemcpy(v.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return v;
}

// The one plan file of a folder.
std::string plan_file(const fs::path& folder) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().extension() == ".plan") files.push_back(e.path().string());
  EXPECT_EQ(files.size(), 1u) << folder;
  return files.empty() ? "" : files.front();
}

void print(const char* what, const std::vector<PlanEvent>& events) {
  for (const PlanEvent& e : events)
    std::printf("[cudnn-plan-cache] %s: %s %s in %.3f s%s: %s\n", what, e.plan.c_str(), plan_source_name(e.source),
                e.seconds, e.runtime_compiled ? " (runtime-compiled engine)" : "", e.status.c_str());
  std::fflush(stdout);
}

// rms_forward over (7, 1000) fp32: y from x and w on one plan; the bytes of y.
using RowPlans = CudnnPlanCache<RowNormShape, RowNormPlan>;
const RowNormShape kRows{RowNormGraph::rms_forward, 7, 1000, DType::f32};

const RowNormPlan& prepare_rows(RowPlans& plans) {
  return plans.prepare(kRows, [](cudnnHandle_t h, const PlanCacheUse& cache) {
    return std::make_unique<RowNormPlan>(h, kRows, cache);
  });
}

std::vector<float> run_rows(const RowNormPlan& plan) {
  std::vector<float> x(std::size_t(kRows.m * kRows.n)), w(std::size_t(kRows.n));
  draw_uniform(x, -2.f, 2.f, 5, 1);
  draw_uniform(w, 0.5f, 1.5f, 5, 2);
  DeviceBuffer dx = upload(x), dw = upload(w), dy(x.size() * sizeof(float)), ws(plan.workspace_bytes());
  NB_CUDA_CHECK(cudaMemset(dy.get(), 0xff, dy.bytes()));  // NaN: an unwritten element shows
  RowNormArgs a;
  a.x = dx.get(), a.scale = dw.get(), a.y = dy.get(), a.eps = 1e-5f;
  plan.run(nullptr, a, ws.get());
  NB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return download(dy);
}

TEST(CudnnPlanCacheOnDisk, APlanKeptByOneHandleIsLoadedByAnotherAndGivesTheSameOutputs) {
  test::TempFolder folder;
  const PlanCacheSetting setting{folder.path.string(), "test"};
  RowPlans built;
  built.use_plan_cache(setting);
  const RowNormPlan* first = nullptr;
  try {
    first = &prepare_rows(built);
  } catch (const Unsupported& e) {
    GTEST_SKIP() << "cuDNN plans no " << kRows.describe() << ": " << e.what();
  }
  const std::vector<PlanEvent> build_events = built.take_events();
  print("first handle", build_events);
  ASSERT_FALSE(build_events.empty());
  EXPECT_EQ(build_events.back().source, PlanSource::built);
  const bool kept = first->status().find("kept in the plan cache") != std::string::npos;

  RowPlans later;  // a second handle, as a later process has
  later.use_plan_cache(setting);
  const RowNormPlan& second = prepare_rows(later);
  const std::vector<PlanEvent> load_events = later.take_events();
  print("second handle", load_events);
  ASSERT_FALSE(load_events.empty());
  if (kept) {
    ASSERT_EQ(load_events.size(), 1u) << "a phase refused before the kept one is not searched again";
    EXPECT_EQ(load_events[0].source, PlanSource::loaded) << load_events[0].status;
    EXPECT_NE(second.status().find("loaded from the plan cache"), std::string::npos) << second.status();
  } else {  // cuDNN serializes no plan of this engine: the status says so and the plan is built again
    EXPECT_NE(first->status().find("not kept"), std::string::npos) << first->status();
    EXPECT_EQ(load_events.back().source, PlanSource::built);
  }
  EXPECT_EQ(second.training(), first->training());
  EXPECT_EQ(second.workspace_bytes(), first->workspace_bytes());
  const std::vector<float> y1 = run_rows(*first), y2 = run_rows(second);
  ASSERT_EQ(y1.size(), y2.size());
  EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)), 0) << "the loaded plan is the built one";
  EXPECT_FALSE(std::isnan(y2[0]));
}

// matmul + bias + scale (+ column sums) in tf32 at (128, 512, 1024): a runtime-compiled plan on
// the H100 (engine 7, docs/cudnn-matmul-fusion.md).
using FusionPlans = CudnnPlanCache<int, MatmulBiasScaleStats>;
const MatmulFusionShape kFusion{128, 512, 1024, true};

const MatmulBiasScaleStats& prepare_fusion(FusionPlans& plans) {
  return plans.prepare(0, [](cudnnHandle_t h, const PlanCacheUse& cache) {
    return std::make_unique<MatmulBiasScaleStats>(h, kFusion, cache);
  });
}

std::vector<float> run_fusion(const MatmulBiasScaleStats& op) {
  const int m = kFusion.m, n = kFusion.n, k = kFusion.k;
  std::vector<float> x(std::size_t(m) * k), w(std::size_t(n) * k), bias(n), scale(n);
  draw_uniform(x, -1.f, 1.f, 9, 1);
  draw_uniform(w, -1.f, 1.f, 9, 2);
  draw_uniform(bias, -1.f, 1.f, 9, 3);
  draw_uniform(scale, 0.5f, 1.5f, 9, 4);
  DeviceBuffer dx = upload(x), dw = upload(w), db = upload(bias), ds = upload(scale);
  DeviceBuffer dh(std::size_t(m) * n * sizeof(float)), sums(2 * std::size_t(n) * sizeof(float)), ws(op.workspace_bytes());
  op.run(nullptr, dx.as<float>(), dw.as<float>(), db.as<float>(), ds.as<float>(), dh.as<float>(), sums.as<float>(),
         sums.as<float>() + n, ws.get());
  NB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return download(dh);
}

TEST(CudnnPlanCacheOnDisk, ARuntimeCompiledPlanLoadsAndRunsAsBuilt) {
  test::TempFolder folder;
  const PlanCacheSetting setting{folder.path.string(), "test"};
  FusionPlans built, later;
  built.use_plan_cache(setting);
  later.use_plan_cache(setting);
  const MatmulBiasScaleStats* first = nullptr;
  try {
    first = &prepare_fusion(built);
  } catch (const Unsupported& e) {
    GTEST_SKIP() << e.what();
  }
  const std::vector<PlanEvent> build_events = built.take_events();
  print("first handle", build_events);
  const MatmulBiasScaleStats& second = prepare_fusion(later);
  const std::vector<PlanEvent> load_events = later.take_events();
  print("second handle", load_events);
  EXPECT_EQ(second.level(), first->level());
  if (first->status().find("kept in the plan cache") != std::string::npos) {
    ASSERT_EQ(load_events.size(), 1u) << "the kept rung is loaded; the rungs refused before it are not searched again";
    EXPECT_EQ(load_events[0].source, PlanSource::loaded) << load_events[0].status;
  }
  const std::vector<float> h1 = run_fusion(*first), h2 = run_fusion(second);
  EXPECT_LT(test::normwise(h2, std::vector<double>(h1.begin(), h1.end())), 1e-6) << "the loaded plan is the built one";
}

// Builds and keeps the rows plan in `folder`, then damages its file with `damage`; a fresh plan
// cache must warn (naming the file) and build the plan again, and its save must replace the file.
void expect_rebuilt_after(const std::function<void(const std::string& file)>& damage, const std::string& warning) {
  test::TempFolder folder;
  const PlanCacheSetting setting{folder.path.string(), "test"};
  {
    RowPlans built;
    built.use_plan_cache(setting);
    try {
      const std::string status = prepare_rows(built).status();
      if (status.find("kept in the plan cache") == std::string::npos) {
        GTEST_SKIP() << "cuDNN serializes no plan of this engine: " << status;
      }
    } catch (const Unsupported& e) {
      GTEST_SKIP() << e.what();
    }
  }
  const std::string file = plan_file(folder.path);
  damage(file);
  RowPlans later;
  later.use_plan_cache(setting);
  testing::internal::CaptureStderr();
  const RowNormPlan& plan = prepare_rows(later);
  const std::string err = testing::internal::GetCapturedStderr();
  const std::vector<PlanEvent> events = later.take_events();
  print("after the damage", events);
  EXPECT_NE(err.find("normbench: plan cache: " + file), std::string::npos) << err;
  EXPECT_NE(err.find(warning), std::string::npos) << err;
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().source, PlanSource::built);
  EXPECT_FALSE(std::isnan(run_rows(plan)[0]));
  RowPlans again;
  again.use_plan_cache(setting);
  prepare_rows(again);
  const std::vector<PlanEvent> reload = again.take_events();
  ASSERT_EQ(reload.size(), 1u);
  EXPECT_EQ(reload[0].source, PlanSource::loaded) << "the rebuilt plan replaced the damaged file";
}

TEST(CudnnPlanCacheOnDisk, ACorruptFileIsAWarningAndARebuild) {
  expect_rebuilt_after(
      [](const std::string& file) {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-1, std::ios::end);
        f.put('\x01');
      },
      "corrupt");
}

TEST(CudnnPlanCacheOnDisk, APlanCudnnRefusesIsAWarningAndARebuild) {
  expect_rebuilt_after(
      [](const std::string& file) {
        std::ifstream in(file, std::ios::binary);
        PlanRecord r = decode_plan_record(std::string(std::istreambuf_iterator<char>(in), {}));
        r.blob = "{\"not\": \"an execution plan\"}";  // a well-formed file whose plan cuDNN cannot take
        in.close();
        std::ofstream(file, std::ios::binary | std::ios::trunc) << encode_plan_record(r);
      },
      "cuDNN refuses its plan");
}

}  // namespace
}  // namespace nb
