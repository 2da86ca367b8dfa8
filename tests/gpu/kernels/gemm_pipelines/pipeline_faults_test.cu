// The GEMM pipelines' planted faults, each a real launch that must be rejected while the correct
// variant it wraps passes the same trials: inference BatchNorm folded into the weights, the
// running variance updated with the biased variance, the linear bias dropped, a softmax replaced
// by 1/N, the (M, 1) minimum returned without its broadcast, tf32 in an fp32 problem, and a bf16
// problem's GEMM summed in bf16.
#include <gtest/gtest.h>

#include "baselines/cublas/cublas_gemm.hpp"
#include "gpu_harness.hpp"
#include "pipeline_fault_support.hpp"
#include "harness/cuda_check.hpp"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::test {
namespace {

namespace bp = gemm_bn;
namespace gp = gemm_gn_min_bias;

// W'[n][k] = W[n][k] * s[n] * gamma[n] / sqrt(rv[n] + eps) and b'[n] = (b[n] s[n] - rm[n]) * that
// + beta[n]: inference BatchNorm folded into nn.Linear, the algebra a training problem forbids.
__global__ void fold_inference_bn_kernel(const float* w, const float* b, const float* s, const float* gamma,
                                         const float* beta, const float* rm, const float* rv, float eps,
                                         float* w_folded, float* b_folded, int n, int k) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)n * k) return;
  const int c = int(i / k);
  const float f = s[c] * gamma[c] * rsqrtf(rv[c] + eps);
  w_folded[i] = w[i] * f;
  if (i % k == 0) b_folded[c] = (b[c] * s[c] - rm[c]) * (gamma[c] * rsqrtf(rv[c] + eps)) + beta[c];
}

// running_var holds (1-m) rv + m var M/(M-1); the fault takes away m var / (M-1), leaving the
// biased variance in the update. var = 1/invstd^2 - eps.
__global__ void biased_running_var_kernel(float* running_var, const float* save_invstd, float momentum, float eps,
                                          int m, int n) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  const float var = 1.0f / (save_invstd[c] * save_invstd[c]) - eps;
  running_var[c] -= momentum * var / float(m - 1);
}

__global__ void fill_kernel(float* y, float value, long long count) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < count) y[i] = value;
}

TEST(PipelineFault, InferenceBatchNormFoldedIntoTheGemm) {
  const OpSpec& op = registry().op("gemm_scale_bn");
  const Problem p = op.make_problem({{"m", 64}, {"n", 96}, {"k", 128}});
  Variant& correct = variant(op, "lt_epilogue");
  const std::size_t n = 96, k = 128;
  auto planted = std::make_unique<Planted>(
      "planted_inference_bn", correct, (n * k + n) * sizeof(float),
      [n, k](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
        c.launch(p, t, ws, s);  // saved and running statistics as the correct variant writes them
        float* w_folded = reinterpret_cast<float*>(static_cast<char*>(ws) + c.workspace_bytes(p));
        float* b_folded = w_folded + n * k;
        fold_inference_bn_kernel<<<blocks(n * k), 256, 0, s>>>(
            t.in(bp::kWeight), t.in(bp::kBias), t.in(bp::kScale), t.in(bp::kGamma), t.in(bp::kBeta),
            t.in(bp::kRunningMean), t.in(bp::kRunningVar), 1e-5f, w_folded, b_folded, int(n), int(k));
        NB_CHECK_LAUNCH();
        const gemm::Operands folded{t.in(bp::kX), w_folded, 64, int(n), int(k)};
        linear::launch_bias_rows(t.out(bp::kY), b_folded, 64, int(n), s);
        cublas::gemm(folded.a, folded.b, t.out(bp::kY), folded.m, folded.n, folded.k, false, true, s);
      });
  FaultCase f{&op, p, std::move(planted), &correct, "y"};
  expect_rejected(f);
}

TEST(PipelineFault, RunningVarianceUpdatedWithTheBiasedVariance) {
  const OpSpec& op = registry().op("gemm_scale_bn");
  const Problem p = op.make_problem({{"m", 16}, {"n", 64}, {"k", 128}});
  Variant& correct = variant(op, "lt_epilogue");
  auto planted = std::make_unique<Planted>(
      "planted_biased_running_var", correct, 0,
      [](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
        c.launch(p, t, ws, s);
        biased_running_var_kernel<<<1, 64, 0, s>>>(t.out(bp::kRunningVar), t.in(bp::kSaveInvstd), 0.1f, 1e-5f, 16, 64);
        NB_CHECK_LAUNCH();
      });
  FaultCase f{&op, p, std::move(planted), &correct, "running_var"};
  expect_rejected(f);
}

// The linear bias is swapped for zeros. BatchNorm hides it in y (a per-column constant), but not
// in the saved mean; GroupNorm's statistics across channels see it in y.
TEST(PipelineFault, LinearBiasDropped) {
  for (const std::string name : {"gemm_scale_bn", "gemm_gn_min_bias"}) {
    const OpSpec& op = registry().op(name);
    const Problem p = name == "gemm_scale_bn" ? op.make_problem({{"m", 64}, {"n", 96}, {"k", 128}})
                                              : op.make_problem({{"m", 64}, {"n", 96}, {"k", 128}, {"g", 6}});
    Variant& correct = variant(op, "lt_epilogue");
    const std::size_t n = 96;
    auto planted = std::make_unique<Planted>(
        "planted_no_bias", correct, n * sizeof(float),
        [n](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
          float* zeros = reinterpret_cast<float*>(static_cast<char*>(ws) + c.workspace_bytes(p));
          NB_CUDA_CHECK(cudaMemsetAsync(zeros, 0, n * sizeof(float), s));
          DeviceTensors view;  // the same buffers, but the bias slot points at zeros (not owned)
          for (const auto& b : t.buffers) view.buffers.push_back(DeviceBuffer::borrow(b.get(), b.bytes()));
          view.buffers[linear::kLinearBias] = DeviceBuffer::borrow(zeros, n * sizeof(float));
          c.launch(p, view, ws, s);
        });
    FaultCase f{&op, p, std::move(planted), &correct, name == "gemm_scale_bn" ? "save_mean" : "y"};
    expect_rejected(f);
  }
}

TEST(PipelineFault, SoftmaxReplacedByOneOverN) {
  const OpSpec& op = registry().op("gemm_bn_scale_softmax");
  const Problem p = op.make_problem({{"m", 128}, {"n", 512}, {"k", 1024}});
  Variant& correct = variant(op, "lt_epilogue");
  auto planted = std::make_unique<Planted>(
      "planted_uniform_softmax", correct, 0,
      [](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
        c.launch(p, t, ws, s);
        fill_kernel<<<blocks(128 * 512), 256, 0, s>>>(t.out(bp::kY), 1.0f / 512, 128 * 512);
        NB_CHECK_LAUNCH();
      });
  FaultCase f{&op, p, std::move(planted), &correct, "y"};
  expect_rejected(f);
}

// torch.min(..., keepdim=True) + bias is (1, N, M, 1); returning the (M, 1) minimum leaves all
// but the first M elements of the output unwritten.
TEST(PipelineFault, MinimumReturnedWithoutTheBroadcast) {
  const OpSpec& op = registry().op("gemm_gn_min_bias");
  const Problem p = op.make_problem({{"m", 64}, {"n", 96}, {"k", 128}, {"g", 6}});
  Variant& correct = variant(op, "lt_epilogue");
  const std::size_t m = 64, n = 96;
  auto planted = std::make_unique<Planted>(
      "planted_no_broadcast", correct, m * n * sizeof(float),
      [m, n](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
        float* full = reinterpret_cast<float*>(static_cast<char*>(ws) + c.workspace_bytes(p));
        DeviceTensors view;
        for (const auto& b : t.buffers) view.buffers.push_back(DeviceBuffer::borrow(b.get(), b.bytes()));
        view.buffers[gp::kY] = DeviceBuffer::borrow(full, m * n * sizeof(float));
        c.launch(p, view, ws, s);
        NB_CUDA_CHECK(cudaMemcpyAsync(t.out(gp::kY), full, m * sizeof(float), cudaMemcpyDeviceToDevice, s));
      });
  FaultCase f{&op, p, std::move(planted), &correct, "y"};
  expect_rejected(f);
}

// h of a bf16 problem with its K products summed in bf16 (the running sum rounded after every
// step: below the problem's fp32 accumulation), the bias added and h rounded as autocast's is,
// stored widened into y for the BatchNorm that follows.
__global__ void bf16_sum_linear_kernel(gemm::Bf16Operands op, const __nv_bfloat16* bias, float* h) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)op.m * op.n) return;
  const int row = int(i / op.n), col = int(i % op.n);
  __nv_bfloat16 sum = __float2bfloat16(0.0f);
  for (int q = 0; q < op.k; ++q)
    sum = __float2bfloat16(fmaf(__bfloat162float(op.a[(long long)row * op.k + q]),
                                __bfloat162float(op.b[(long long)col * op.k + q]), __bfloat162float(sum)));
  h[i] = __bfloat162float(__float2bfloat16(__bfloat162float(sum) + __bfloat162float(bias[col])));
}

// A bf16 kernel that sums in bf16, then BatchNorm (and the softmax) exactly as lt_epilogue's
// passes: the bf16 bound must reject it at K = 1024 and 8192 (docs/tolerance.md, "The bf16
// problems"), while lt_epilogue passes.
TEST(PipelineFault, Bf16AccumulationInABf16Problem) {
  for (const std::string name : {"gemm_scale_bn", "gemm_bn_scale_softmax"})
    for (const std::int64_t k : {1024, 8192}) {
      const OpSpec& op = registry().op(name);
      const Problem p = op.make_problem({{"m", 64}, {"n", 256}, {"k", double(k)}}, DType::bf16);
      const bp::BnTail tail = name == "gemm_scale_bn" ? bp::BnTail::normalize : bp::BnTail::scale_softmax;
      Variant& correct = variant(op, "lt_epilogue");
      const std::size_t affine_bytes = 2 * 256 * sizeof(float);
      auto planted = std::make_unique<Planted>(
          "planted_bf16_sums", correct, affine_bytes + linear::bn_columns_workspace_bytes(64, 256),
          [tail](Variant&, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
            const bp::Args a = bp::args_of(tail, p, t);
            bf16_sum_linear_kernel<<<blocks((long long)a.m * a.n), 256, 0, s>>>(a.bf16.op, a.bf16.bias, a.y);
            NB_CHECK_LAUNCH();
            float* affine = static_cast<float*>(ws);
            void* columns_ws = affine + 2 * std::size_t(a.n);
            if (tail == bp::BnTail::normalize) {
              linear::launch_bn_columns(a.y, a.y, a.column_scale, a.bn, a.m, a.n, s, columns_ws);
              return;
            }
            linear::launch_bn_columns(a.y, a.y, nullptr, a.bn, a.m, a.n, s, columns_ws, a.post_scale, affine);
            linear::launch_softmax_rows(a.y, a.y, affine, a.m, a.n, s);
          });
      FaultCase f{&op, p, std::move(planted), &correct, "y"};
      expect_rejected(f);
    }
}

// The tf32 path of a correct variant run on an fp32 problem: the fp32 tolerance must reject it,
// at K = 1024 and at the KernelBench K = 8192, where the fp32 bound is widest.
TEST(PipelineFault, Tf32InAnFp32Problem) {
  for (const std::string name : {"gemm_scale_bn", "gemm_bn_scale_softmax"})
    for (const std::int64_t k : {1024, 8192}) {
      const OpSpec& op = registry().op(name);
      const Problem p = op.make_problem({{"m", 64}, {"n", 256}, {"k", double(k)}});
      for (const std::string base : {"lt_epilogue", "fused_epilogue"}) {
        Variant& correct = variant(op, base);
        auto planted = std::make_unique<Planted>(
            "planted_tf32_" + base, correct, 0,
            [](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
              Problem tf32 = p;
              tf32.dtype = DType::tf32;
              c.prepare(tf32);
              c.launch(tf32, t, ws, s);
              c.prepare(p);  // the correct variant shares this object and runs the fp32 problem next
            });
        FaultCase f{&op, p, std::move(planted), &correct, "y"};
        expect_rejected(f);
      }
    }
}

}  // namespace
}  // namespace nb::test
