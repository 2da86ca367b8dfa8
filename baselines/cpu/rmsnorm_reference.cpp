#include "baselines/cpu/rmsnorm_reference.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/parallel.hpp"

namespace nb::cpu {
namespace {

using ConstFloats = Eigen::Map<const Eigen::ArrayXf>;
using Doubles = Eigen::Map<Eigen::ArrayXd>;

// Positions of one image handled together: their running sums (16 KB) stay in L1 while the
// channel loop streams contiguous runs of x.
constexpr std::int64_t kPositionsPerTask = 2048;

// One task: positions [s0, s0 + len) of image `img`. `denom` is the task's scratch.
void nchw_task(const float* x, double* y, std::int64_t img, std::int64_t c, std::int64_t plane, std::int64_t s0,
               std::int64_t len, double eps, std::vector<double>& denom) {
  denom.resize(static_cast<std::size_t>(len));
  Doubles d(denom.data(), len);
  d.setZero();
  const std::int64_t image = img * c * plane + s0;
  for (std::int64_t ch = 0; ch < c; ++ch) d += ConstFloats(x + image + ch * plane, len).cast<double>().square();
  d = (d / static_cast<double>(c) + eps).sqrt();
  for (std::int64_t ch = 0; ch < c; ++ch)
    Doubles(y + image + ch * plane, len) = ConstFloats(x + image + ch * plane, len).cast<double>() / d;
}

}  // namespace

void rmsnorm_nchw_reference(const float* x, double* y, std::int64_t n, std::int64_t c, std::int64_t plane,
                            double eps) {
  const std::int64_t tasks_per_image = (plane + kPositionsPerTask - 1) / kPositionsPerTask;
  // A few tasks per thread at least; each is C * up to 2048 elements.
  const std::int64_t min_tasks = std::max<std::int64_t>(1, 65536 / (c * std::min(plane, kPositionsPerTask)));
  parallel_for(
      n * tasks_per_image,
      [&](std::int64_t begin, std::int64_t end) {
        std::vector<double> denom;
        for (std::int64_t t = begin; t < end; ++t) {
          const std::int64_t img = t / tasks_per_image, s0 = (t % tasks_per_image) * kPositionsPerTask;
          nchw_task(x, y, img, c, plane, s0, std::min(kPositionsPerTask, plane - s0), eps, denom);
        }
      },
      min_tasks);
}

void rmsnorm_rows_reference(const float* x, const float* w, double* y, std::int64_t m, std::int64_t n, double eps) {
  const Eigen::ArrayXd weight = ConstFloats(w, n).cast<double>();
  parallel_for(
      m,
      [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t row = begin; row < end; ++row) {
          const auto xr = ConstFloats(x + row * n, n).cast<double>();
          const double denom = std::sqrt(xr.square().sum() / static_cast<double>(n) + eps);
          Doubles(y + row * n, n) = xr / denom * weight;
        }
      },
      std::max<std::int64_t>(1, 65536 / n));
}

}  // namespace nb::cpu
