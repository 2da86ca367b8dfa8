// The GEMM template (kernels/gemm/): every named mainloop configuration, through the store
// epilogue, against a float64 GEMM on odd and even shapes, and the naive GEMM with its bias.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/distribution.hpp"
#include "kernels/gemm/gemm_kernel.cuh"
#include "kernels/gemm/naive_gemm.cuh"
#include "gemm_test_problem.hpp"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm {
namespace {

using namespace test;

using Launcher = void (*)(const Operands&, const StoreEpilogue&, cudaStream_t);

struct Config {
  const char* name;
  Launcher launch;
  bool tf32;
};

const std::vector<Config>& configs() {
  static const std::vector<Config> all = {
      {"SimtLarge", &launch_gemm<SimtLarge, StoreEpilogue>, false},
      {"SimtLargeK16", &launch_gemm<SimtLargeK16, StoreEpilogue>, false},
      {"SimtColumnStrip", &launch_gemm<SimtColumnStrip, StoreEpilogue>, false},
      {"SimtSquare", &launch_gemm<SimtSquare, StoreEpilogue>, false},
      {"SimtRowStrip32", &launch_gemm<SimtRowStrip32, StoreEpilogue>, false},
      {"SimtRowStrip", &launch_gemm<SimtRowStrip, StoreEpilogue>, false},
      {"Tf32Large", &launch_gemm<Tf32Large, StoreEpilogue>, true},
      {"Tf32Small", &launch_gemm<Tf32Small, StoreEpilogue>, true},
      // Candidates for large problems (apps/gemm_configs.cu times them).
      {"SimtWide", &launch_gemm<SimtWide, StoreEpilogue>, false},
      {"SimtWideK16", &launch_gemm<SimtWideK16, StoreEpilogue>, false},
      {"SimtTall", &launch_gemm<SimtTall, StoreEpilogue>, false},
      {"Tf32Wide", &launch_gemm<Tf32Wide, StoreEpilogue>, true},
      {"Tf32Wide4", &launch_gemm<Tf32Wide4, StoreEpilogue>, true},
      {"Tf32WideK16", &launch_gemm<Tf32WideK16, StoreEpilogue>, true},
      {"Tf32Tall", &launch_gemm<Tf32Tall, StoreEpilogue>, true},
      {"Tf32Large64", &launch_gemm<Tf32Large64, StoreEpilogue>, true},
  };
  return all;
}

const Shape kShapes[] = {{1, 1, 1},     {2, 5, 3},      {127, 33, 1000}, {128, 512, 1024},
                         {257, 129, 68}, {64, 256, 512}, {33, 70, 7}};

// Runs one configuration with the store epilogue into a NaN-poisoned C and reads C back.
std::vector<float> run_config(const Config& cfg, DeviceProblem& d, bool with_bias) {
  d.poison_c();
  cfg.launch(d.op, StoreEpilogue{d.c.as<float>(), d.op.n, with_bias ? d.bias.as<const float>() : nullptr}, nullptr);
  return d.read_c();
}

TEST(GemmMainloop, EveryConfigurationMatchesFloat64OnEveryShape) {
  for (const Shape& s : kShapes) {
    const HostProblem h(s);
    const std::vector<double> ref = h.reference(false);
    DeviceProblem d(h);
    std::vector<float> fp32_result;
    for (const Config& cfg : configs()) {
      SCOPED_TRACE(std::string(cfg.name) + " " + shape_name(s));
      const std::vector<float> c = run_config(cfg, d, false);
      ASSERT_EQ(first_non_finite(c), c.size()) << "element left unwritten (NaN poison) or not finite";
      const double err = normwise(c, ref);
      if (!cfg.tf32) {
        EXPECT_LT(err, fp32_bound(s.k));
        if (fp32_result.empty()) fp32_result = c;
      } else {
        EXPECT_LT(err, 3e-3);
        // tf32 rounding of the operands must show: the result is not the fp32 one.
        if (s.k >= 64) EXPECT_GT(normwise(c, fp32_result), 1e-5) << "no tf32 rounding visible";
      }
    }
  }
}

TEST(GemmMainloop, MisalignedOperandsTakeTheScalarPath) {
  // K % 4 == 0 but A and B start 4 bytes past a 16-byte boundary: the launcher must not use
  // the float4 path.
  for (const Shape& s : {Shape{257, 129, 68}, Shape{64, 256, 512}}) {
    const HostProblem h(s);
    const std::vector<double> ref = h.reference(false);
    DeviceProblem d(h, 1);
    ASSERT_NE(reinterpret_cast<std::uintptr_t>(d.op.a) % 16, 0u);
    for (const Config& cfg : configs()) {
      SCOPED_TRACE(std::string(cfg.name) + " " + shape_name(s));
      const std::vector<float> c = run_config(cfg, d, false);
      ASSERT_EQ(first_non_finite(c), c.size());
      EXPECT_LT(normwise(c, ref), cfg.tf32 ? 3e-3 : fp32_bound(s.k));
    }
  }
}

TEST(GemmMainloop, StoreEpilogueAddsTheBias) {
  const Shape s{257, 129, 68};
  const HostProblem h(s);
  const std::vector<double> ref = h.reference(true);
  DeviceProblem d(h);
  for (const Config& cfg : configs()) {
    SCOPED_TRACE(cfg.name);
    const std::vector<float> c = run_config(cfg, d, true);
    ASSERT_EQ(first_non_finite(c), c.size());
    EXPECT_LT(normwise(c, ref), cfg.tf32 ? 3e-3 : fp32_bound(s.k));
  }
}

// Operand policies (operand_tiles.cuh): the same product with A and/or B stored transposed
// (MN-major), as the backward's GEMMs read W, x and dg, through the register-staged paths of
// both mainloop kinds. MN-major storage of A is x^T (K, M), of B is W^T (K, N).
template <class Mainloop, bool kTransposedA, bool kTransposedB>
void launch_with_layouts(const float* a, const float* a_t, const float* b, const float* b_t, const Shape& s, float* c) {
  const StoreEpilogue store{c, s.n, nullptr};
  auto with_b = [&](const auto& op_a) {
    if constexpr (kTransposedB)
      launch_operand_gemm<Mainloop>(op_a, MNMajor<PlainSource>{{b_t, s.k, s.n}}, s.m, s.n, s.k, store, nullptr);
    else
      launch_operand_gemm<Mainloop>(op_a, KMajor<PlainSource>{{b, s.n, s.k}}, s.m, s.n, s.k, store, nullptr);
  };
  if constexpr (kTransposedA)
    with_b(MNMajor<PlainSource>{{a_t, s.k, s.m}});
  else
    with_b(KMajor<PlainSource>{{a, s.m, s.k}});
}

using LayoutLauncher = void (*)(const float*, const float*, const float*, const float*, const Shape&, float*);

struct LayoutConfig {
  const char* name;
  LayoutLauncher launch;
  bool tf32;
};

template <class Mainloop>
void add_layouts(std::vector<LayoutConfig>& all, const char* name, bool tf32) {
  all.push_back({name, &launch_with_layouts<Mainloop, true, true>, tf32});
  all.push_back({name, &launch_with_layouts<Mainloop, false, true>, tf32});
  all.push_back({name, &launch_with_layouts<Mainloop, true, false>, tf32});
  all.push_back({name, &launch_with_layouts<Mainloop, false, false>, tf32});
}

std::vector<float> transposed(const std::vector<float>& v, int rows, int cols) {
  std::vector<float> t(v.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[std::size_t(c) * rows + r] = v[std::size_t(r) * cols + c];
  return t;
}

TEST(GemmMainloop, OperandLayoutsMatchFloat64OnEveryShape) {
  std::vector<LayoutConfig> configs;
  add_layouts<SimtWideK16>(configs, "SimtWideK16", false);
  add_layouts<SimtSquare>(configs, "SimtSquare", false);
  add_layouts<Tf32Large>(configs, "Tf32Large", true);
  add_layouts<Tf32Small>(configs, "Tf32Small", true);
  const char* layouts[] = {"A^T B^T", "A B^T", "A^T B", "A B"};
  for (const Shape& s : kShapes)
    for (const int offset : {0, 1}) {  // 1: every operand 4 bytes off 16-byte alignment (scalar path)
      const HostProblem h(s);
      const std::vector<double> ref = h.reference(false);
      DeviceProblem d(h, offset);
      const std::vector<float> xt = transposed(h.x, s.m, s.k), wt = transposed(h.w, s.n, s.k);
      DeviceBuffer xt_d((xt.size() + 4) * sizeof(float)), wt_d((wt.size() + 4) * sizeof(float));
      NB_CUDA_CHECK(cudaMemcpy(xt_d.as<float>() + offset, xt.data(), xt.size() * sizeof(float), cudaMemcpyHostToDevice));
      NB_CUDA_CHECK(cudaMemcpy(wt_d.as<float>() + offset, wt.data(), wt.size() * sizeof(float), cudaMemcpyHostToDevice));
      for (std::size_t i = 0; i < configs.size(); ++i) {
        const LayoutConfig& cfg = configs[i];
        SCOPED_TRACE(std::string(cfg.name) + " " + layouts[i % 4] + " " + shape_name(s) + " offset " +
                     std::to_string(offset));
        d.poison_c();
        cfg.launch(d.op.a, xt_d.as<const float>() + offset, d.op.b, wt_d.as<const float>() + offset, s,
                   d.c.as<float>());
        const std::vector<float> c = d.read_c();
        ASSERT_EQ(first_non_finite(c), c.size()) << "element left unwritten (NaN poison) or not finite";
        EXPECT_LT(normwise(c, ref), cfg.tf32 ? 3e-3 : fp32_bound(s.k));
      }
    }
}

TEST(GemmMainloop, NaiveGemmWithAndWithoutBias) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(shape_name(s));
    const HostProblem h(s);
    DeviceProblem d(h);
    for (bool with_bias : {false, true}) {
      d.poison_c();
      launch_naive_gemm(d.op, with_bias ? d.bias.as<const float>() : nullptr, d.c.as<float>(), nullptr);
      const std::vector<float> c = d.read_c();
      ASSERT_EQ(first_non_finite(c), c.size());
      EXPECT_LT(normwise(c, h.reference(with_bias)), fp32_bound(s.k)) << "bias " << with_bias;
    }
  }
}

}  // namespace
}  // namespace nb::gemm
