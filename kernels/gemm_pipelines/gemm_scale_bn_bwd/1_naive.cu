// naive: one kernel per step of autograd's chain, one thread per column or per output element,
// no shared memory: the column sums, dh into the workspace, ds and db, then dx and dW as dot
// products read straight from global memory. bf16 (autocast): each element of dg = dh * s rounded
// to bf16 before db, dx and dW use it, the sums in fp32, the gradients stored in bf16.
#include "harness/cuda_check.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/linear_storage.cuh"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/primitives/storage.cuh"

namespace nb::gemm_scale_bn_bwd {
namespace {

using dev::from_float;
using dev::to_float;

// xhat = (g * s - mean) * invstd of element e (column j).
template <class G>
__device__ float xhat_at(const Args& a, std::size_t e, int j) {
  return (to_float(LinearStorage<G>::g(a)[e]) * a.scale[j] - a.save_mean[j]) * a.save_invstd[j];
}

// dg = dh * s as autograd keeps it: rounded to g's storage.
template <class G>
__device__ float dg_at(const Args& a, const float* dh, std::size_t i, std::size_t j) {
  return to_float(from_float<G>(dh[i * a.n + j] * a.scale[j]));
}

// dbeta = sum dy, dgamma = sum dy * xhat.
template <class G>
__global__ void column_sums(Args a) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  float sum_dy = 0.f, sum_dy_xhat = 0.f;
  for (int i = 0; i < a.m; ++i) {
    const std::size_t e = std::size_t(i) * a.n + j;
    sum_dy += a.dy[e];
    sum_dy_xhat += a.dy[e] * xhat_at<G>(a, e, j);
  }
  a.dbeta[j] = sum_dy;
  a.dgamma[j] = sum_dy_xhat;
}

// dh = gamma * invstd * (dy - dbeta / M - xhat * dgamma / M).
template <class G>
__global__ void input_gradient(Args a, float* dh) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::size_t(a.m) * a.n) return;
  const int j = int(e % std::size_t(a.n));
  const float inv_m = 1.0f / float(a.m);
  dh[e] = a.gamma[j] * a.save_invstd[j] * (a.dy[e] - a.dbeta[j] * inv_m - xhat_at<G>(a, e, j) * a.dgamma[j] * inv_m);
}

// ds = sum dh * g, db = sum dg.
template <class G>
__global__ void scale_and_bias_gradients(Args a, const float* dh) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  const G* g = LinearStorage<G>::g(a);
  float ds = 0.f, db = 0.f;
  for (int i = 0; i < a.m; ++i) {
    ds += dh[std::size_t(i) * a.n + j] * to_float(g[std::size_t(i) * a.n + j]);
    db += dg_at<G>(a, dh, i, j);
  }
  a.dscale[j] = ds;
  LinearStorage<G>::dbias(a)[j] = from_float<G>(db);
}

// dx[i][c] = sum_j dg[i][j] W[j][c].
template <class G>
__global__ void input_of_linear_gradient(Args a, const float* dh) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::size_t(a.m) * a.k) return;
  const std::size_t i = e / std::size_t(a.k), c = e % std::size_t(a.k);
  const G* weight = LinearStorage<G>::weight(a);
  float acc = 0.f;
  for (int j = 0; j < a.n; ++j) acc += dg_at<G>(a, dh, i, j) * to_float(weight[std::size_t(j) * a.k + c]);
  LinearStorage<G>::dx(a)[e] = from_float<G>(acc);
}

// dW[j][c] = sum_i dg[i][j] x[i][c].
template <class G>
__global__ void weight_gradient(Args a, const float* dh) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::size_t(a.n) * a.k) return;
  const std::size_t j = e / std::size_t(a.k), c = e % std::size_t(a.k);
  const G* x = LinearStorage<G>::x(a);
  float acc = 0.f;
  for (int i = 0; i < a.m; ++i) acc += dg_at<G>(a, dh, i, j) * to_float(x[std::size_t(i) * a.k + c]);
  LinearStorage<G>::dweight(a)[e] = from_float<G>(acc);
}

unsigned blocks(std::size_t threads, int per_block) { return unsigned((threads + per_block - 1) / per_block); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* dh = static_cast<float*>(ws);
  constexpr int kBlock = 256;
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    column_sums<G><<<blocks(a.n, kBlock), kBlock, 0, s>>>(a);
    NB_CHECK_LAUNCH();
    input_gradient<G><<<blocks(std::size_t(a.m) * a.n, kBlock), kBlock, 0, s>>>(a, dh);
    NB_CHECK_LAUNCH();
    scale_and_bias_gradients<G><<<blocks(a.n, kBlock), kBlock, 0, s>>>(a, dh);
    NB_CHECK_LAUNCH();
    input_of_linear_gradient<G><<<blocks(std::size_t(a.m) * a.k, kBlock), kBlock, 0, s>>>(a, dh);
    NB_CHECK_LAUNCH();
    weight_gradient<G><<<blocks(std::size_t(a.n) * a.k, kBlock), kBlock, 0, s>>>(a, dh);
    NB_CHECK_LAUNCH();
  });
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  KernelVariantSpec v{"naive", "naive",
                      "one kernel per step of autograd's chain, one thread per column or output element: "
                      "column sums, dh to the workspace, ds and db, then dx and dW as global-memory dot products",
                      launch};
  v.supports = linear::naive_support;
  v.workspace_bytes = [](const Problem& p) {
    const linear::Shape s = linear::shape_of(p);
    return std::size_t(s.m) * std::size_t(s.n) * sizeof(float);
  };
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_scale_bn_bwd
