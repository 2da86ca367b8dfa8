// unfused: what PyTorch eager runs, one kernel per step: addmm (the bias copied into the output,
// then a cuBLAS GEMM that accumulates onto it), the scale, BatchNorm's statistics, commit and
// normalize, then (L2#84) the scalar scale and a row softmax, each into a fresh tensor.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_bn {
namespace {

// Workspace: h or z (M*N), u (M*N, softmax tail only), Welford partials, the folded affine.
struct Workspace {
  float* h;
  float* u;
  linear::dev::Welford* partials;
  float* affine;
  int chunks;
};

std::size_t matrix_floats(const Args& a) { return std::size_t(a.m) * std::size_t(a.n); }

Workspace carve(const Args& a, void* ws) {
  Workspace w;
  w.chunks = linear::column_partial_chunks(a.m);
  float* f = static_cast<float*>(ws);
  w.h = f;
  f += matrix_floats(a);
  w.u = f;
  if (a.tail == BnTail::scale_softmax) f += matrix_floats(a);
  w.partials = reinterpret_cast<linear::dev::Welford*>(f);
  w.affine = reinterpret_cast<float*>(w.partials + std::size_t(w.chunks) * std::size_t(a.n));
  return w;
}

std::size_t bytes_needed(BnTail tail, const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  const std::size_t matrices = (tail == BnTail::scale_softmax ? 2 : 1) * std::size_t(s.m) * std::size_t(s.n);
  const std::size_t chunks = std::size_t(linear::column_partial_chunks(int(s.m)));
  return matrices * sizeof(float) + chunks * std::size_t(s.n) * sizeof(linear::dev::Welford) +
         3 * std::size_t(s.n) * sizeof(float);
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  const Workspace w = carve(a, ws);
  linear::cublas_linear(p, a.op, a.bias, a.bf16, a.y, w.affine + 2 * std::size_t(a.n), s);
  const float* h = a.y;
  if (tail == BnTail::normalize) {
    linear::launch_scale(a.y, w.h, a.column_scale, a.m, a.n, true, s);
    h = w.h;
  }
  linear::launch_column_partials(h, w.partials, a.m, a.n, s);
  linear::launch_commit_columns(w.partials, w.chunks, a.bn, nullptr, nullptr, w.affine, a.n, s);
  if (tail == BnTail::normalize) {
    linear::launch_apply_columns(h, a.y, w.affine, a.m, a.n, s);
    return;
  }
  linear::launch_apply_columns(h, w.h, w.affine, a.m, a.n, s);
  linear::launch_scale(w.h, w.u, a.post_scale, a.m, a.n, false, s);
  linear::launch_softmax_rows(w.u, a.y, nullptr, a.m, a.n, s);
}

}  // namespace

std::unique_ptr<Variant> make_unfused_variant(BnTail tail) {
  KernelVariantSpec v{"unfused", "cublas",
                      "PyTorch eager's sequence: bias copy + cuBLAS GEMM (addmm), then one kernel per step "
                      "(scale, Welford statistics, commit, normalize, softmax) through fresh tensors",
                      [tail](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(tail, p, t, ws, s);
                      }};
  v.workspace_bytes = [tail](const Problem& p) { return bytes_needed(tail, p); };
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_bn
