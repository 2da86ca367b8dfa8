#include "baselines/gpu/batchnorm_references.hpp"
#include "harness/host_device.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"
#include "harness/validation/slice_reduce.cuh"

namespace nb::gpu {
namespace {

// Element j of channel c's values (n outermost, then the hw positions), as an index into x.
struct ChannelIndex {
  std::int64_t c, hw;
  NB_HD std::int64_t operator()(std::int64_t channel, std::int64_t j) const { return (j / hw * c + channel) * hw + j % hw; }
  NB_HD std::int64_t channel_of(std::int64_t i) const { return i / hw % c; }
};

// Per-channel sums of term(channel, index into x) over the channel's values.
template <class Ex, class Term>
std::vector<double> per_channel(Ex& ex, const bn::Shape& d, Term term) {
  const ChannelIndex at{d.c, d.hw};
  const Scratch<double> sums =
      slice_sums(ex, d.c, d.count(), [=] NB_HD(std::int64_t channel, std::int64_t j) { return term(channel, at(channel, j)); });
  return ex.to_host(sums.get(), d.c);
}

template <class Ex>
Scratch<double> on_executor(Ex& ex, const std::vector<double>& values) {
  Scratch<double> out = ex.template scratch<double>(std::int64_t(values.size()));
  ex.upload(values.data(), out.get(), std::int64_t(values.size()));
  return out;
}

}  // namespace

template <class Ex>
ChannelSums channel_sums(Ex& ex, const float* x, const bn::Shape& d) {
  ChannelSums s;
  s.sum = per_channel(ex, d, [=] NB_HD(std::int64_t, std::int64_t i) { return double(x[i]); });
  s.abs_sum = per_channel(ex, d, [=] NB_HD(std::int64_t, std::int64_t i) { return fabs(double(x[i])); });
  for (double v : s.sum) s.mean.push_back(v / double(d.count()));
  const Scratch<double> mean = on_executor(ex, s.mean);
  const double* mu = mean.get();
  const std::vector<double> dev2 = per_channel(ex, d, [=] NB_HD(std::int64_t c, std::int64_t i) {
    const double dev = double(x[i]) - mu[c];
    return dev * dev;
  });
  for (double v : dev2) s.var.push_back(v / double(d.count()));
  return s;
}

template <class Ex>
void saved_statistics(Ex& ex, const float* x, const bn::Shape& d, float* save_mean, float* save_invstd) {
  const ChannelSums s = channel_sums(ex, x, d);
  std::vector<float> mean(std::size_t(d.c)), invstd(std::size_t(d.c));
  for (std::size_t c = 0; c < mean.size(); ++c) {
    mean[c] = float(s.mean[c]);
    invstd[c] = float(1.0 / sqrt(s.var[c] + d.eps));
  }
  ex.upload(mean.data(), save_mean, d.c);
  ex.upload(invstd.data(), save_invstd, d.c);
}

template <class Ex>
ChannelSums batchnorm_forward(Ex& ex, const BatchNormForward& t, const bn::Shape& d) {
  const ChannelSums s = channel_sums(ex, t.x, d);
  std::vector<double> save_mean(std::size_t(d.c)), save_invstd(std::size_t(d.c));
  const std::vector<float> rm = ex.to_host(t.running_mean, d.c), rv = ex.to_host(t.running_var, d.c);
  std::vector<double> new_rm(std::size_t(d.c)), new_rv(std::size_t(d.c));
  const double mom = d.momentum, unbias = double(d.count()) / double(d.count() - 1);
  for (std::size_t c = 0; c < save_mean.size(); ++c) {
    save_mean[c] = s.mean[c];
    save_invstd[c] = 1.0 / sqrt(s.var[c] + d.eps);
    new_rm[c] = (1 - mom) * double(rm[c]) + mom * s.mean[c];
    new_rv[c] = (1 - mom) * double(rv[c]) + mom * s.var[c] * unbias;
  }
  ex.upload(save_mean.data(), t.save_mean, d.c);
  ex.upload(save_invstd.data(), t.save_invstd, d.c);
  ex.upload(new_rm.data(), t.new_running_mean, d.c);
  ex.upload(new_rv.data(), t.new_running_var, d.c);
  const ChannelIndex at{d.c, d.hw};
  const BatchNormForward v = t;
  ex.each(d.n * d.c * d.hw, [=] NB_HD(std::int64_t i) {
    const std::int64_t c = at.channel_of(i);
    const double scale = v.save_invstd[c] * double(v.gamma[c]);
    v.y[i] = (double(v.x[i]) - v.save_mean[c]) * scale + double(v.beta[c]);
  });
  return s;
}

template <class Ex>
GradientSums batchnorm_backward(Ex& ex, const BatchNormBackward& t, const bn::Shape& d) {
  const BatchNormBackward v = t;
  const auto xhat = [=] NB_HD(std::int64_t c, std::int64_t i) {
    return (double(v.x[i]) - double(v.save_mean[c])) * double(v.save_invstd[c]);
  };
  GradientSums g;
  g.sum_dy = per_channel(ex, d, [=] NB_HD(std::int64_t, std::int64_t i) { return double(v.dy[i]); });
  g.abs_dy = per_channel(ex, d, [=] NB_HD(std::int64_t, std::int64_t i) { return fabs(double(v.dy[i])); });
  g.sum_dyx = per_channel(ex, d, [=] NB_HD(std::int64_t c, std::int64_t i) { return double(v.dy[i]) * xhat(c, i); });
  g.abs_dyx = per_channel(ex, d, [=] NB_HD(std::int64_t c, std::int64_t i) { return fabs(double(v.dy[i]) * xhat(c, i)); });
  g.term2 = per_channel(ex, d, [=] NB_HD(std::int64_t c, std::int64_t i) {
    const double k = fabs(double(v.gamma[c]) * double(v.save_invstd[c])), dy = v.dy[i];
    return k * k * dy * dy;
  });
  ex.upload(g.sum_dy.data(), t.dbeta, d.c);
  ex.upload(g.sum_dyx.data(), t.dgamma, d.c);
  const ChannelIndex at{d.c, d.hw};
  const double count = double(d.count());
  ex.each(d.n * d.c * d.hw, [=] NB_HD(std::int64_t i) {
    const std::int64_t c = at.channel_of(i);
    const double k = double(v.gamma[c]) * double(v.save_invstd[c]) / count;
    v.dx[i] = k * (count * double(v.dy[i]) - v.dbeta[c] - xhat(c, i) * v.dgamma[c]);
  });
  g.dx2 = per_channel(ex, d, [=] NB_HD(std::int64_t, std::int64_t i) { return v.dx[i] * v.dx[i]; });
  return g;
}

#define NB_INSTANTIATE(Ex)                                                                         \
  template ChannelSums channel_sums<Ex>(Ex&, const float*, const bn::Shape&);                   \
  template void saved_statistics<Ex>(Ex&, const float*, const bn::Shape&, float*, float*);      \
  template ChannelSums batchnorm_forward<Ex>(Ex&, const BatchNormForward&, const bn::Shape&);   \
  template GradientSums batchnorm_backward<Ex>(Ex&, const BatchNormBackward&, const bn::Shape&);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
