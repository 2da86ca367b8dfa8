// gemm_scale_bn_bwd's planted faults, each a real launch that must be rejected while the correct
// variant passes the same trials: dW transposed, the BatchNorm backward without its mean terms
// (the inference backward), the scale dropped from the chain (dg = dh), dgamma from the
// unbiased variance, tf32 products in an fp32 problem, and a bf16 problem's GEMMs summed in bf16.
#include <gtest/gtest.h>

#include <cmath>

#include "baselines/cublas/cublas_gemm.hpp"
#include "harness/cuda_check.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp"
#include "pipeline_fault_support.hpp"

namespace nb::test {
namespace {

namespace bb = gemm_scale_bn_bwd;

// out[c][j] = in[j][c]: an (N, K) matrix written as (K, N).
__global__ void transpose_kernel(const float* in, float* out, int n, int k) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)n * k) return;
  const long long j = i / k, c = i % k;
  out[c * n + j] = in[i];
}

// v[j] /= s[j] for `vectors` consecutive vectors of n.
__global__ void divide_by_scale_kernel(float* v, const float* s, int n, int vectors) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n * vectors) v[i] /= s[i % n];
}

__global__ void multiply_kernel(float* v, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= factor;
}

constexpr int kM = 64, kN = 96, kK = 128;

const OpSpec& backward_op() { return registry().op("gemm_scale_bn_bwd"); }
Problem small_problem() { return backward_op().make_problem({{"m", kM}, {"n", kN}, {"k", kK}}); }

// sums_then_cublas's steps with the coefficients of dg edited by `edit` before dg is written.
template <class Edit>
void run_with_edited_coefficients(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s, Edit edit) {
  const bb::Args a = bb::args_of(p, t);
  float* dg = static_cast<float*>(ws);
  const bb::DgCoefficients k = bb::launch_column_gradients(a, dg + std::size_t(a.m) * a.n, s);
  edit(a, k);
  bb::launch_write_dg(a, k, dg, s);
  cublas::gemm_dx(dg, a.weight, a.dx, a.m, a.n, a.k, a.tf32, s);
  cublas::gemm_dw(dg, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
}

void expect_fault_rejected(std::unique_ptr<Variant> planted, Variant& correct, const std::string& tensor,
                           const Problem& p = small_problem()) {
  FaultCase f{&backward_op(), p, std::move(planted), &correct, tensor};
  expect_rejected(f);
}

TEST(BackwardFault, WeightGradientTransposed) {
  Variant& correct = variant(backward_op(), "sums_then_cublas");
  expect_fault_rejected(
      std::make_unique<Planted>("planted_dw_transposed", correct, std::size_t(kN) * kK * sizeof(float),
                                [](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                                  c.launch(p, t, ws, s);
                                  float* copy = reinterpret_cast<float*>(static_cast<char*>(ws) + c.workspace_bytes(p));
                                  NB_CUDA_CHECK(cudaMemcpyAsync(copy, t.out(bb::kDweight), std::size_t(kN) * kK * 4,
                                                                cudaMemcpyDeviceToDevice, s));
                                  transpose_kernel<<<blocks(kN * kK), 256, 0, s>>>(copy, t.out(bb::kDweight), kN, kK);
                                  NB_CHECK_LAUNCH();
                                }),
      correct, "dweight");
}

// dh = gamma invstd dy: B = C = 0 leaves dg = s gamma invstd dy.
TEST(BackwardFault, InferenceBackwardWithoutTheMeanTerms) {
  Variant& correct = variant(backward_op(), "sums_then_cublas");
  expect_fault_rejected(
      std::make_unique<Planted>("planted_inference_backward", correct, 0,
                                [](Variant&, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                                  run_with_edited_coefficients(p, t, ws, s, [s](const bb::Args& a, const bb::DgCoefficients& k) {
                                    NB_CUDA_CHECK(cudaMemsetAsync(const_cast<float*>(k.b), 0, 2 * a.n * sizeof(float), s));
                                  });
                                }),
      correct, "dx");
}

// dg = dh: the chain rule through h = g * s forgotten for dx, dW and db.
TEST(BackwardFault, ScaleDroppedFromTheChain) {
  Variant& correct = variant(backward_op(), "sums_then_cublas");
  expect_fault_rejected(
      std::make_unique<Planted>("planted_no_scale_in_chain", correct, 0,
                                [](Variant&, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                                  run_with_edited_coefficients(p, t, ws, s, [s](const bb::Args& a, const bb::DgCoefficients& k) {
                                    divide_by_scale_kernel<<<blocks(3 * a.n), 256, 0, s>>>(const_cast<float*>(k.a),
                                                                                          a.scale, a.n, 3);
                                    NB_CHECK_LAUNCH();
                                  });
                                }),
      correct, "dweight");
}

// xhat from the unbiased variance scales dgamma by sqrt((M - 1) / M).
TEST(BackwardFault, GammaGradientFromTheUnbiasedVariance) {
  Variant& correct = variant(backward_op(), "fused_prologue");
  expect_fault_rejected(
      std::make_unique<Planted>("planted_unbiased_dgamma", correct, 0,
                                [](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                                  c.launch(p, t, ws, s);
                                  multiply_kernel<<<1, 128, 0, s>>>(t.out(bb::kDgamma),
                                                                    float(std::sqrt((kM - 1.0) / kM)), kN);
                                  NB_CHECK_LAUNCH();
                                }),
      correct, "dgamma");
}

// The tf32 path of the correct variants on fp32 problems, at K = 1024 and 8192.
TEST(BackwardFault, Tf32InAnFp32Problem) {
  for (const double k : {1024.0, 8192.0})
    for (const std::string base : {"sums_then_cublas", "fused_prologue"}) {
      Variant& correct = variant(backward_op(), base);
      const Problem p = backward_op().make_problem({{"m", 64}, {"n", 256}, {"k", k}});
      expect_fault_rejected(
          std::make_unique<Planted>("planted_tf32_" + base, correct, 0,
                                    [](Variant& c, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                                      Problem tf32 = p;
                                      tf32.dtype = DType::tf32;
                                      c.launch(tf32, t, ws, s);
                                    }),
          correct, "dx", p);
    }
}

// dx = dg W (m, k) and dW = dg^T x (n, k) of a bf16 problem, each dot product's running sum
// rounded to bf16 after every product: below the problem's fp32 accumulation.
__device__ __nv_bfloat16 bf16_sum_step(__nv_bfloat16 sum, __nv_bfloat16 a, __nv_bfloat16 b) {
  return __float2bfloat16(fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(sum)));
}

__global__ void bf16_sum_dx_kernel(const __nv_bfloat16* dg, const __nv_bfloat16* w, __nv_bfloat16* dx, int m, int n,
                                   int k) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)m * k) return;
  const long long row = i / k, c = i % k;
  __nv_bfloat16 sum = __float2bfloat16(0.0f);
  for (int j = 0; j < n; ++j) sum = bf16_sum_step(sum, dg[row * n + j], w[(long long)j * k + c]);
  dx[i] = sum;
}

__global__ void bf16_sum_dw_kernel(const __nv_bfloat16* dg, const __nv_bfloat16* x, __nv_bfloat16* dw, int m, int n,
                                   int k) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)n * k) return;
  const long long j = i / k, c = i % k;
  __nv_bfloat16 sum = __float2bfloat16(0.0f);
  for (int r = 0; r < m; ++r) sum = bf16_sum_step(sum, dg[(long long)r * n + j], x[(long long)r * k + c]);
  dw[i] = sum;
}

// sums_then_cublas's column pass and bf16 dg, then both GEMMs summed in bf16: the bf16 bound must
// reject dx and dW where they reduce over 1024 terms (docs/tolerance.md, "The bf16 problems"),
// while sums_then_cublas passes the same trials.
TEST(BackwardFault, Bf16AccumulationInABf16Problem) {
  Variant& correct = variant(backward_op(), "sums_then_cublas");
  const Problem p = backward_op().make_problem({{"m", 1024}, {"n", 1024}, {"k", 64}}, DType::bf16);
  for (const std::string tensor : {"dx", "dweight"})
    expect_fault_rejected(
        std::make_unique<Planted>("planted_bf16_sums", correct, 0,
                                  [](Variant&, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                                    const bb::Args a = bb::args_of(p, t);
                                    auto* dg = static_cast<__nv_bfloat16*>(ws);
                                    const bb::DgCoefficients k = bb::launch_column_gradients(
                                        a, static_cast<float*>(ws) + std::size_t(a.m) * a.n, s);
                                    bb::launch_write_dg(a, k, dg, s);
                                    bf16_sum_dx_kernel<<<blocks((long long)a.m * a.k), 256, 0, s>>>(
                                        dg, a.bf16.weight, a.bf16.dx, a.m, a.n, a.k);
                                    NB_CHECK_LAUNCH();
                                    bf16_sum_dw_kernel<<<blocks((long long)a.n * a.k), 256, 0, s>>>(
                                        dg, a.bf16.x, a.bf16.dweight, a.m, a.n, a.k);
                                    NB_CHECK_LAUNCH();
                                  }),
        correct, tensor, p);
}

}  // namespace
}  // namespace nb::test
