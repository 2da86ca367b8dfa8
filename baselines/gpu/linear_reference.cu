#include "baselines/gpu/linear_reference.hpp"
#include "harness/host_device.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"

namespace nb::gpu {

template <class Ex>
Scratch<double> widened(Ex& ex, stored::Tensor values, std::int64_t n) {
  Scratch<double> out = ex.template scratch<double>(n);
  double* o = out.get();
  ex.each(n, [=] NB_HD(std::int64_t i) { o[i] = double(values[i]); });
  return out;
}

template <class Ex>
Scratch<double> linear(Ex& ex, stored::Tensor x, stored::Tensor w, stored::Tensor b, std::int64_t m, std::int64_t n,
                       std::int64_t k) {
  const Scratch<double> xd = widened(ex, x, m * k), wd = widened(ex, w, n * k);
  Scratch<double> g = ex.template scratch<double>(m * n);
  ex.gemm({m, n, k, false, true}, xd.get(), wd.get(), g.get());
  if (b.data) {
    double* out = g.get();
    ex.each(m * n, [=] NB_HD(std::int64_t i) { out[i] += double(b[i % n]); });
  }
  return g;
}

#define NB_INSTANTIATE(Ex)                                                     \
  template Scratch<double> widened<Ex>(Ex&, stored::Tensor, std::int64_t);                                     \
  template Scratch<double> linear<Ex>(Ex&, stored::Tensor, stored::Tensor, stored::Tensor, std::int64_t, std::int64_t, \
                                      std::int64_t);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
