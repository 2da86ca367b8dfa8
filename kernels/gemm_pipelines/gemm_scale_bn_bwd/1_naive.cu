// naive: one kernel per step of autograd's chain, one thread per column or per output element,
// no shared memory: the column sums, dh into the workspace, ds and db, then dx and dW as dot
// products read straight from global memory.
#include "harness/cuda_check.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"

namespace nb::gemm_scale_bn_bwd {
namespace {

// dbeta = sum dy, dgamma = sum dy * xhat, xhat = (g * s - mean) * invstd.
__global__ void column_sums(Args a) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  float sum_dy = 0.f, sum_dy_xhat = 0.f;
  for (int i = 0; i < a.m; ++i) {
    const float dy = a.dy[std::size_t(i) * a.n + j];
    const float xhat = (a.g[std::size_t(i) * a.n + j] * a.scale[j] - a.save_mean[j]) * a.save_invstd[j];
    sum_dy += dy;
    sum_dy_xhat += dy * xhat;
  }
  a.dbeta[j] = sum_dy;
  a.dgamma[j] = sum_dy_xhat;
}

// dh = gamma * invstd * (dy - dbeta / M - xhat * dgamma / M).
__global__ void input_gradient(Args a, float* dh) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::size_t(a.m) * a.n) return;
  const int j = int(e % std::size_t(a.n));
  const float xhat = (a.g[e] * a.scale[j] - a.save_mean[j]) * a.save_invstd[j];
  const float inv_m = 1.0f / float(a.m);
  dh[e] = a.gamma[j] * a.save_invstd[j] * (a.dy[e] - a.dbeta[j] * inv_m - xhat * a.dgamma[j] * inv_m);
}

// ds = sum dh * g, db = sum dg = sum dh * s.
__global__ void scale_and_bias_gradients(Args a, const float* dh) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  float ds = 0.f, sum_dh = 0.f;
  for (int i = 0; i < a.m; ++i) {
    const float v = dh[std::size_t(i) * a.n + j];
    ds += v * a.g[std::size_t(i) * a.n + j];
    sum_dh += v * a.scale[j];
  }
  a.dscale[j] = ds;
  a.dbias[j] = sum_dh;
}

// dx[i][c] = sum_j dh[i][j] s[j] W[j][c].
__global__ void input_of_linear_gradient(Args a, const float* dh) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::size_t(a.m) * a.k) return;
  const std::size_t i = e / std::size_t(a.k), c = e % std::size_t(a.k);
  float acc = 0.f;
  for (int j = 0; j < a.n; ++j) acc += dh[i * a.n + j] * a.scale[j] * a.weight[std::size_t(j) * a.k + c];
  a.dx[e] = acc;
}

// dW[j][c] = sum_i dh[i][j] s[j] x[i][c].
__global__ void weight_gradient(Args a, const float* dh) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= std::size_t(a.n) * a.k) return;
  const std::size_t j = e / std::size_t(a.k), c = e % std::size_t(a.k);
  float acc = 0.f;
  for (int i = 0; i < a.m; ++i) acc += dh[std::size_t(i) * a.n + j] * a.scale[j] * a.x[std::size_t(i) * a.k + c];
  a.dweight[e] = acc;
}

unsigned blocks(std::size_t threads, int per_block) { return unsigned((threads + per_block - 1) / per_block); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* dh = static_cast<float*>(ws);
  constexpr int kBlock = 256;
  column_sums<<<blocks(a.n, kBlock), kBlock, 0, s>>>(a);
  NB_CHECK_LAUNCH();
  input_gradient<<<blocks(std::size_t(a.m) * a.n, kBlock), kBlock, 0, s>>>(a, dh);
  NB_CHECK_LAUNCH();
  scale_and_bias_gradients<<<blocks(a.n, kBlock), kBlock, 0, s>>>(a, dh);
  NB_CHECK_LAUNCH();
  input_of_linear_gradient<<<blocks(std::size_t(a.m) * a.k, kBlock), kBlock, 0, s>>>(a, dh);
  NB_CHECK_LAUNCH();
  weight_gradient<<<blocks(std::size_t(a.n) * a.k, kBlock), kBlock, 0, s>>>(a, dh);
  NB_CHECK_LAUNCH();
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
