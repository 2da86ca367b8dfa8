#include "baselines/gpu/groupnorm_references.hpp"
#include "harness/host_device.hpp"
#include "harness/portable_math.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"
#include "harness/validation/slice_reduce.cuh"

namespace nb::gpu {

template <class Ex>
double groupnorm(Ex& ex, const float* x, const float* gamma, const float* beta, double* y, const GroupNormDims& d) {
  const std::int64_t blocks = d.n * d.g, count = d.c / d.g * d.hw;
  const Scratch<double> sums =
      slice_sums(ex, blocks, count, [=] NB_HD(std::int64_t b, std::int64_t j) { return double(x[b * count + j]); });
  const Scratch<double> squares = slice_sums(ex, blocks, count, [=] NB_HD(std::int64_t b, std::int64_t j) {
    const double v = x[b * count + j];
    return v * v;
  });
  const double* sum = sums.get();
  const Scratch<double> deviations = slice_sums(ex, blocks, count, [=] NB_HD(std::int64_t b, std::int64_t j) {
    const double dev = double(x[b * count + j]) - sum[b] / double(count);
    return dev * dev;
  });
  const double* dev2 = deviations.get();
  const double* sq = squares.get();
  const double eps = d.eps;
  const std::int64_t channels = d.c, hw = d.hw;
  ex.each(d.n * d.c * d.hw, [=] NB_HD(std::int64_t i) {
    const std::int64_t b = i / count, channel = i / hw % channels;
    const double mean = sum[b] / double(count), invstd = 1.0 / sqrt(dev2[b] / double(count) + eps);
    y[i] = (double(x[i]) - mean) * (invstd * double(gamma[channel])) + double(beta[channel]);
  });
  double worst = 1.0;
  const std::vector<double> s = ex.to_host(sum, blocks), v2 = ex.to_host(dev2, blocks), q = ex.to_host(sq, blocks);
  for (std::int64_t b = 0; b < blocks; ++b) {
    const double k = sqrt(q[std::size_t(b)] / double(count) / (v2[std::size_t(b)] / double(count) + eps));
    if (portable::is_finite(k) && k > worst) worst = k;
  }
  return worst;
}

#define NB_INSTANTIATE(Ex) \
  template double groupnorm<Ex>(Ex&, const float*, const float*, const float*, double*, const GroupNormDims&);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
