#pragma once
// What the GEMM tests share: a GEMM problem with nn.Linear's inputs, its float64 product, its
// operands on the device in fp32 or bf16 (optionally off 16-byte alignment), and the error measures.
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/distribution.hpp"
#include "kernels/gemm/operands.hpp"

namespace nb::gemm::test {

struct Shape {
  int m, n, k;
};

inline std::string shape_name(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// nn.Linear's inputs: x in U[0, 1), W in U(-1/sqrt(K), 1/sqrt(K)), plus a bias like W's.
struct HostProblem {
  Shape shape;
  std::vector<float> x, w, bias;

  explicit HostProblem(const Shape& s) : shape(s), x(std::size_t(s.m) * s.k), w(std::size_t(s.n) * s.k), bias(s.n) {
    const float bound = 1.0f / std::sqrt(float(s.k));
    draw(x, Distribution::uniform01, 2024, 1);
    draw_uniform(w, -bound, bound, 2024, 2);
    draw_uniform(bias, -bound, bound, 2024, 3);
  }

  std::vector<double> reference(bool with_bias) const {
    std::vector<double> c(std::size_t(shape.m) * shape.n);
    for (int i = 0; i < shape.m; ++i)
      for (int j = 0; j < shape.n; ++j) {
        double sum = with_bias ? double(bias[j]) : 0.0;
        const float* a = &x[std::size_t(i) * shape.k];
        const float* b = &w[std::size_t(j) * shape.k];
        for (int l = 0; l < shape.k; ++l) sum += double(a[l]) * double(b[l]);
        c[std::size_t(i) * shape.n + j] = sum;
      }
    return c;
  }
};

// The problem with x and W rounded to bf16: the values a bf16 GEMM multiplies.
inline HostProblem bf16_rounded(HostProblem h) {
  for (std::vector<float>* v : {&h.x, &h.w})
    for (float& e : *v) e = __bfloat162float(__float2bfloat16_rn(e));
  return h;
}

// The problem's x and W on the device in bf16; `offset_elements` shifts them off 16-byte alignment.
struct Bf16DeviceOperands {
  DeviceBuffer x, w;
  Bf16Operands op{};

  explicit Bf16DeviceOperands(const HostProblem& h, int offset_elements = 0)
      : x((h.x.size() + 8) * sizeof(__nv_bfloat16)), w((h.w.size() + 8) * sizeof(__nv_bfloat16)) {
    upload(h.x, x.as<__nv_bfloat16>() + offset_elements);
    upload(h.w, w.as<__nv_bfloat16>() + offset_elements);
    op = Bf16Operands{x.as<const __nv_bfloat16>() + offset_elements, w.as<const __nv_bfloat16>() + offset_elements,
                      h.shape.m, h.shape.n, h.shape.k};
  }

 private:
  static void upload(const std::vector<float>& values, __nv_bfloat16* to) {
    std::vector<__nv_bfloat16> rounded(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) rounded[i] = __float2bfloat16_rn(values[i]);
    NB_CUDA_CHECK(cudaMemcpy(to, rounded.data(), rounded.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  }
};

// The problem's operands on the device; `offset_floats` shifts A and B off 16-byte alignment.
struct DeviceProblem {
  DeviceBuffer x, w, bias, c;
  Operands op{};
  int offset;

  DeviceProblem(const HostProblem& h, int offset_floats = 0)
      : x((h.x.size() + 4) * sizeof(float)),
        w((h.w.size() + 4) * sizeof(float)),
        bias(h.bias.size() * sizeof(float)),
        c(h.x.size() / h.shape.k * h.shape.n * sizeof(float)),
        offset(offset_floats) {
    NB_CUDA_CHECK(cudaMemcpy(x.as<float>() + offset, h.x.data(), h.x.size() * sizeof(float), cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemcpy(w.as<float>() + offset, h.w.data(), h.w.size() * sizeof(float), cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemcpy(bias.get(), h.bias.data(), h.bias.size() * sizeof(float), cudaMemcpyHostToDevice));
    op = Operands{x.as<const float>() + offset, w.as<const float>() + offset, h.shape.m, h.shape.n, h.shape.k};
  }

  void poison_c() { NB_CUDA_CHECK(cudaMemset(c.get(), 0xFF, c.bytes())); }  // all-ones bits: NaN

  std::vector<float> read_c() const {
    std::vector<float> out(c.bytes() / sizeof(float));
    NB_CUDA_CHECK(cudaDeviceSynchronize());
    NB_CUDA_CHECK(cudaMemcpy(out.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost));
    return out;
  }
};

template <class T, class U>
double normwise(const std::vector<T>& y, const std::vector<U>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double d = double(y[i]) - double(ref[i]);
    diff += d * d;
    norm += double(ref[i]) * double(ref[i]);
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

inline std::size_t first_non_finite(const std::vector<float>& y) {
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isfinite(y[i])) return i;
  return y.size();
}

inline double fp32_bound(int k) { return 1e-5 * std::max(1.0, std::sqrt(double(k)) / 8.0); }

}  // namespace nb::gemm::test
