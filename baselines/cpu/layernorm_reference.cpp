#include "baselines/cpu/layernorm_reference.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "harness/parallel.hpp"

namespace nb::cpu {
namespace {

using ConstFloats = Eigen::Map<const Eigen::ArrayXf>;
using Doubles = Eigen::Map<Eigen::ArrayXd>;

}  // namespace

void layernorm_rows_reference(const float* x, const float* w, const float* b, std::int64_t m, std::int64_t n,
                              double eps, const LayerNormRowsOut& out) {
  const Eigen::ArrayXd weight = ConstFloats(w, n).cast<double>(), bias = ConstFloats(b, n).cast<double>();
  parallel_for(
      m,
      [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t row = begin; row < end; ++row) {
          const auto xr = ConstFloats(x + row * n, n).cast<double>();  // lazy: no copy per row
          const double mean = xr.sum() / static_cast<double>(n);
          const double var = (xr - mean).square().sum() / static_cast<double>(n);
          const double rstd = 1.0 / std::sqrt(var + eps);
          Doubles(out.y + row * n, n) = (xr - mean) * rstd * weight + bias;
          out.mean[row] = mean;
          out.rstd[row] = rstd;
        }
      },
      std::max<std::int64_t>(1, 65536 / n));
}

}  // namespace nb::cpu
