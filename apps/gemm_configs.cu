// gemm_configs: a developer tool for tuning the GEMM template (kernels/gemm/). It times every
// named mainloop configuration and the Hopper GEMM (kernels/gemm/sm90/, where the GPU and shape
// allow it), with the store epilogue into C, against cuBLAS at the same precision (fp32, tf32, or
// bf16 operands with fp32 accumulation and C), with the harness's timer (warm-up, L2 flushed before each sample,
// CUDA events), and prints per configuration the median ms, TFLOP/s and % of cuBLAS, cuBLAS timed
// in turn with each configuration.
//   gemm_configs [MxNxK ...] [--benchmark_filter=REGEX]   (default: the shapes in kDefaultShapes)
// Correctness is the job of tests/gpu/kernels/gemm/ (gemm_mainloop_test.cu, wgmma_gemm_test.cu);
// this tool only times.
#include <benchmark/benchmark.h>
#include <cuda_bf16.h>

#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "baselines/cublas/cublas_gemm.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/device/gpu_info.hpp"
#include "harness/device/l2_flush.hpp"
#include "harness/device_buffer.hpp"
#include "harness/distribution.hpp"
#include "harness/timing/case_timer.hpp"
#include "harness/timing/statistics.hpp"
#include "kernels/gemm/gemm_kernel.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/store_epilogue.cuh"

namespace {

using namespace nb;
using gemm::Operands;

constexpr int kSamples = 50, kWarmUps = 3;
const char* const kDefaultShapes[] = {"1024x8192x8192", "16384x4096x4096", "128x512x1024"};

enum class Precision { fp32, tf32, bf16 };
const char* precision_name(Precision p) { return p == Precision::fp32 ? "fp32" : p == Precision::tf32 ? "tf32" : "bf16"; }

// One shape's operands (nn.Linear's: x in U[0, 1), W in U(-1/sqrt(K), 1/sqrt(K))), their bf16
// roundings, and its C.
struct Problem {
  std::string name;
  Operands op{};
  gemm::Bf16Operands bf16{};
  DeviceBuffer a, b, a_bf16, b_bf16, c;

  Problem(const std::string& shape, int m, int n, int k)
      : name(shape),
        a(std::size_t(m) * k * sizeof(float)),
        b(std::size_t(n) * k * sizeof(float)),
        a_bf16(std::size_t(m) * k * sizeof(__nv_bfloat16)),
        b_bf16(std::size_t(n) * k * sizeof(__nv_bfloat16)),
        c(std::size_t(m) * n * sizeof(float)) {
    std::vector<float> host(std::size_t(m) * k);
    draw(host, Distribution::uniform01, 2024, 1);
    upload(host, a, a_bf16);
    host.resize(std::size_t(n) * k);
    const float bound = 1.0f / std::sqrt(float(k));
    draw_uniform(host, -bound, bound, 2024, 2);
    upload(host, b, b_bf16);
    op = Operands{a.as<const float>(), b.as<const float>(), m, n, k};
    bf16 = gemm::Bf16Operands{a_bf16.as<const __nv_bfloat16>(), b_bf16.as<const __nv_bfloat16>(), m, n, k};
  }

 private:
  static void upload(const std::vector<float>& values, DeviceBuffer& fp32, DeviceBuffer& bf16) {
    NB_CUDA_CHECK(cudaMemcpy(fp32.get(), values.data(), fp32.bytes(), cudaMemcpyHostToDevice));
    std::vector<__nv_bfloat16> rounded(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) rounded[i] = __float2bfloat16_rn(values[i]);
    NB_CUDA_CHECK(cudaMemcpy(bf16.get(), rounded.data(), bf16.bytes(), cudaMemcpyHostToDevice));
  }
};

struct Config {
  const char* name;
  Precision precision;
  void (*launch)(const Problem&, const gemm::StoreEpilogue&, cudaStream_t);
  std::string (*refusal)(const Problem&) = nullptr;  // why it cannot run a shape; empty: it can
};

template <class Mainloop>
void launch_simt(const Problem& p, const gemm::StoreEpilogue& e, cudaStream_t s) {
  gemm::launch_gemm<Mainloop, gemm::StoreEpilogue>(p.op, e, s);
}

template <class Mainloop>
constexpr Config config(const char* name, bool tf32) {
  return {name, tf32 ? Precision::tf32 : Precision::fp32, &launch_simt<Mainloop>};
}

// The Hopper GEMM on the fp32 operands (read as tf32) or on their bf16 roundings.
template <gemm::sm90::MmaOverlap kOverlap, gemm::sm90::TileOrder kOrder, Precision kPrecision,
          gemm::sm90::WgmmaGrid kGrid>
void launch_wgmma(const Problem& p, const gemm::StoreEpilogue& e, cudaStream_t s) {
  if constexpr (kPrecision == Precision::bf16)
    gemm::sm90::launch_wgmma_gemm_store<kOverlap, kOrder, kGrid>(p.bf16, e, s);
  else
    gemm::sm90::launch_wgmma_gemm_store<kOverlap, kOrder, kGrid>(p.op, e, s);
}

template <Precision kPrecision>
std::string wgmma_refusal(const Problem& p) {
  if constexpr (kPrecision == Precision::bf16) return gemm::sm90::wgmma_gemm_refusal(p.bf16);
  else return gemm::sm90::wgmma_gemm_refusal(p.op);
}

template <gemm::sm90::MmaOverlap kOverlap, gemm::sm90::TileOrder kOrder, Precision kPrecision = Precision::tf32,
          gemm::sm90::WgmmaGrid kGrid = gemm::sm90::WgmmaGrid::cta_per_tile>
constexpr Config wgmma_config(const char* name) {
  return {name, kPrecision, &launch_wgmma<kOverlap, kOrder, kPrecision, kGrid>, &wgmma_refusal<kPrecision>};
}

using gemm::sm90::MmaOverlap;
using gemm::sm90::TileOrder;
using gemm::sm90::WgmmaGrid;

const Config kConfigs[] = {
    config<gemm::SimtLarge>("SimtLarge", false),
    config<gemm::SimtLargeK16>("SimtLargeK16", false),
    config<gemm::SimtWide>("SimtWide", false),
    config<gemm::SimtWideK16>("SimtWideK16", false),
    config<gemm::SimtTall>("SimtTall", false),
    config<gemm::SimtSquare>("SimtSquare", false),
    config<gemm::SimtColumnStrip>("SimtColumnStrip", false),
    config<gemm::SimtRowStrip32>("SimtRowStrip32", false),
    config<gemm::SimtRowStrip>("SimtRowStrip", false),
    config<gemm::Tf32Large>("Tf32Large", true),
    config<gemm::Tf32Large64>("Tf32Large64", true),
    config<gemm::Tf32Wide>("Tf32Wide", true),
    config<gemm::Tf32Wide4>("Tf32Wide4", true),
    config<gemm::Tf32WideK16>("Tf32WideK16", true),
    config<gemm::Tf32Tall>("Tf32Tall", true),
    config<gemm::Tf32Small>("Tf32Small", true),
    wgmma_config<MmaOverlap::none, TileOrder::m_fastest>("Wgmma128x256"),
    wgmma_config<MmaOverlap::one_group, TileOrder::m_fastest>("Wgmma128x256Overlap"),
    wgmma_config<MmaOverlap::none, TileOrder::grouped>("Wgmma128x256Grouped"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped>("Wgmma128x256GroupedOverlap"),
    wgmma_config<MmaOverlap::none, TileOrder::m_fastest, Precision::bf16>("Wgmma128x256Bf16"),
    wgmma_config<MmaOverlap::none, TileOrder::grouped, Precision::bf16>("Wgmma128x256GroupedBf16"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped, Precision::bf16>("Wgmma128x256GroupedOverlapBf16"),
    wgmma_config<MmaOverlap::none, TileOrder::grouped, Precision::tf32, WgmmaGrid::persistent>("Wgmma128x256Persistent"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped, Precision::tf32, WgmmaGrid::persistent>(
        "Wgmma128x256PersistentOverlap"),
    wgmma_config<MmaOverlap::none, TileOrder::grouped, Precision::bf16, WgmmaGrid::persistent>(
        "Wgmma128x256PersistentBf16"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped, Precision::bf16, WgmmaGrid::persistent>(
        "Wgmma128x256PersistentOverlapBf16"),
    wgmma_config<MmaOverlap::none, TileOrder::grouped, Precision::tf32, WgmmaGrid::pingpong>("Wgmma64x256PingPong"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped, Precision::tf32, WgmmaGrid::pingpong>(
        "Wgmma64x256PingPongOverlap"),
    wgmma_config<MmaOverlap::none, TileOrder::grouped, Precision::bf16, WgmmaGrid::pingpong>("Wgmma64x256PingPongBf16"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped, Precision::bf16, WgmmaGrid::pingpong>(
        "Wgmma64x256PingPongOverlapBf16"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped, Precision::tf32, WgmmaGrid::pingpong_pair>(
        "Wgmma64x256PingPongPairOverlap"),
    wgmma_config<MmaOverlap::one_group, TileOrder::grouped, Precision::bf16, WgmmaGrid::pingpong_pair>(
        "Wgmma64x256PingPongPairOverlapBf16"),
};

// Times `launch` with the harness's CaseTimer and reports its median; returns it. With a
// `reference` (cuBLAS at the same precision), the two are sampled in turn, one sample each per
// iteration, so that drift of clock or temperature within the run reaches both alike; its median
// is reported beside and %cuBLAS is their ratio. (Timed one after the other, cuBLAS tf32 at
// 16384 x 4096 x 4096 took 1.344 ms in one session and 1.50 ms in the next on the same H100 kind,
// and configurations that run the same tiles differed by 5%.)
double time_launch(benchmark::State& state, const Problem& p, const std::function<void()>& launch,
                   L2Flusher& flusher, cudaStream_t stream, const std::function<void()>& reference = {}) {
  CaseTimer timer(launch, flusher, stream);
  std::optional<CaseTimer> reference_timer;
  if (reference) reference_timer.emplace(reference, flusher, stream);
  timer.warm_up(kWarmUps);
  if (reference_timer) reference_timer->warm_up(kWarmUps);
  std::vector<double> samples, reference_samples;
  for (auto _ : state) {
    samples.push_back(timer.sample_ms());
    if (reference_timer) reference_samples.push_back(reference_timer->sample_ms());
    state.SetIterationTime(samples.back() * 1e-3);
  }
  const double ms = summarize(samples).median;
  state.counters["ms"] = ms;
  state.counters["TFLOP/s"] = 2.0 * p.op.m * p.op.n * double(p.op.k) / (ms * 1e-3) / 1e12;
  if (reference_timer) {
    const double reference_ms = summarize(reference_samples).median;
    state.counters["cuBLAS_ms"] = reference_ms;
    state.counters["%cuBLAS"] = 100.0 * reference_ms / ms;
  }
  return ms;
}

void cublas_gemm(const Problem& p, Precision precision, cudaStream_t stream) {
  if (precision == Precision::bf16)
    cublas::gemm_bf16(p.bf16.a, p.bf16.b, p.c.as<float>(), p.op.m, p.op.n, p.op.k, false, stream);
  else
    cublas::gemm(p.op.a, p.op.b, p.c.as<float>(), p.op.m, p.op.n, p.op.k, precision == Precision::tf32, false, stream);
}

void register_problem(Problem& p, L2Flusher& flusher, cudaStream_t stream) {
  for (Precision precision : {Precision::fp32, Precision::tf32, Precision::bf16}) {
    const std::string name = p.name + "/cuBLAS_" + precision_name(precision);
    benchmark::RegisterBenchmark(name.c_str(), [&p, &flusher, stream, precision](benchmark::State& s) {
      time_launch(s, p, [&] { cublas_gemm(p, precision, stream); }, flusher, stream);
    })->UseManualTime()->Iterations(kSamples)->Unit(benchmark::kMillisecond);
  }
  for (const Config& cfg : kConfigs) {
    const std::string name = p.name + "/" + cfg.name;
    benchmark::RegisterBenchmark(name.c_str(), [&p, &flusher, stream, cfg](benchmark::State& s) {
      const std::string refusal = cfg.refusal ? cfg.refusal(p) : "";
      if (!refusal.empty()) {
        s.SkipWithError(refusal.c_str());
        return;
      }
      const gemm::StoreEpilogue epilogue{p.c.as<float>(), p.op.n, nullptr};
      time_launch(s, p, [&] { cfg.launch(p, epilogue, stream); }, flusher, stream,
                  [&] { cublas_gemm(p, cfg.precision, stream); });
      s.SetLabel(precision_name(cfg.precision));
    })->UseManualTime()->Iterations(kSamples)->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);  // takes the --benchmark_* flags, leaves the shapes
  std::vector<std::string> shapes(argv + 1, argv + argc);
  if (shapes.empty()) shapes.assign(std::begin(kDefaultShapes), std::end(kDefaultShapes));
  struct Shape {
    int m = 0, n = 0, k = 0;
  };
  std::vector<Shape> dims;
  for (const std::string& shape : shapes) {
    Shape d;
    char tail = 0;
    if (std::sscanf(shape.c_str(), "%dx%dx%d%c", &d.m, &d.n, &d.k, &tail) != 3 || d.m < 1 || d.n < 1 || d.k < 1) {
      std::fprintf(stderr, "gemm_configs: '%s' is not a shape MxNxK\n", shape.c_str());
      return 2;
    }
    dims.push_back(d);
  }
  if (!nb::cuda_device_available()) {
    std::printf("gemm_configs: no usable CUDA device, nothing timed\n");
    return 77;
  }
  nb::CudaStream stream;
  nb::L2Flusher flusher(nb::query_gpu(0).l2_bytes);
  std::deque<Problem> problems;  // stable addresses: the benchmarks hold references
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    problems.emplace_back(shapes[i], dims[i].m, dims[i].n, dims[i].k);
    register_problem(problems.back(), flusher, stream.get());
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
