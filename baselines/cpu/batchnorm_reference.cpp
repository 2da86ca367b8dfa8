#include "baselines/cpu/batchnorm_reference.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "harness/parallel.hpp"

namespace nb::bn {
namespace {

using RunF = Eigen::Map<const Eigen::ArrayXf>;
using RunD = Eigen::Map<Eigen::ArrayXd>;

// Calls f(c, offset) for every contiguous run (one n, one channel: hw values) of the channels
// [c0, c1), n outermost, so the 1d layout walks rows and stays cache friendly.
template <class F>
void for_each_run(const Shape& s, std::int64_t c0, std::int64_t c1, F f) {
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t c = c0; c < c1; ++c) f(c, (n * s.c + c) * s.hw);
}

// Runs of a chunk that one core takes: enough values that a 1d layout's one-value runs are worth it.
std::int64_t runs_per_chunk(const Shape& s) { return std::max<std::int64_t>(1, 4096 / s.hw); }

// f(c, offset) for every run, the runs split across cores (run r = n * C + c sits at r * hw).
template <class F>
void each_run(const Shape& s, const F& f) {
  parallel_for(s.n * s.c, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) f(r % s.c, r * s.hw);
  }, runs_per_chunk(s));
}

// Per channel, the sum over its runs (n ascending) of term(c, offset), each run's term taken whole.
// The channels split across cores, or, where they are fewer than the cores (the audit's slices of
// two large channels), the runs, whose terms are added in the same order afterwards: the same sums.
template <class Term>
std::vector<double> channel_sums(const Shape& s, const Term& term) {
  std::vector<double> sum(std::size_t(s.c), 0.0);
  if (s.c >= worker_threads()) {
    parallel_for(s.c, [&](std::int64_t c0, std::int64_t c1) {
      for_each_run(s, c0, c1, [&](std::int64_t c, std::int64_t off) { sum[std::size_t(c)] += term(c, off); });
    }, 1);
    return sum;
  }
  std::vector<double> per_run(std::size_t(s.n * s.c));
  each_run(s, [&](std::int64_t c, std::int64_t off) { per_run[std::size_t(off / s.hw)] = term(c, off); });
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t c = 0; c < s.c; ++c) sum[std::size_t(c)] += per_run[std::size_t(n * s.c + c)];
  return sum;
}

}  // namespace

ChannelMoments channel_moments(const Shape& s, const float* x) {
  const double count = double(s.count());
  ChannelMoments m;
  m.mean = channel_sums(s, [&](std::int64_t, std::int64_t off) { return RunF(x + off, s.hw).cast<double>().sum(); });
  for (double& mean : m.mean) mean /= count;
  m.var = channel_sums(s, [&](std::int64_t c, std::int64_t off) {
    return (RunF(x + off, s.hw).cast<double>() - m.mean[std::size_t(c)]).square().sum();
  });
  for (double& var : m.var) var /= count;
  return m;
}

void forward_reference(const Shape& s, const float* x, const float* gamma, const float* beta,
                       const float* running_mean, const float* running_var, const ForwardOutputs& out) {
  const ChannelMoments m = channel_moments(s, x);
  const double mom = s.momentum;
  for (std::int64_t c = 0; c < s.c; ++c) {
    out.save_mean[c] = m.mean[c];
    out.save_invstd[c] = 1.0 / std::sqrt(m.var[c] + s.eps);
    out.running_mean[c] = (1 - mom) * double(running_mean[c]) + mom * m.mean[c];
    out.running_var[c] = (1 - mom) * double(running_var[c]) + mom * m.var[c] * s.unbias();
  }
  each_run(s, [&](std::int64_t c, std::int64_t off) {
    const double scale = out.save_invstd[c] * double(gamma[c]);
    RunD(out.y + off, s.hw) = (RunF(x + off, s.hw).cast<double>() - out.save_mean[c]) * scale + double(beta[c]);
  });
}

void backward_reference(const Shape& s, const float* x, const float* dy, const float* gamma, const float* save_mean,
                        const float* save_invstd, const BackwardOutputs& out) {
  const double count = double(s.count());
  const auto xhat = [&](std::int64_t c, std::int64_t off) {
    return (RunF(x + off, s.hw).cast<double>() - double(save_mean[c])) * double(save_invstd[c]);
  };
  const std::vector<double> sum_dy =
      channel_sums(s, [&](std::int64_t, std::int64_t off) { return RunF(dy + off, s.hw).cast<double>().sum(); });
  const std::vector<double> sum_dy_xhat = channel_sums(s, [&](std::int64_t c, std::int64_t off) {
    return (RunF(dy + off, s.hw).cast<double>() * xhat(c, off)).sum();
  });
  for (std::int64_t c = 0; c < s.c; ++c) {
    out.dbeta[c] = sum_dy[std::size_t(c)];
    out.dgamma[c] = sum_dy_xhat[std::size_t(c)];
  }
  each_run(s, [&](std::int64_t c, std::int64_t off) {
    const double k = double(gamma[c]) * double(save_invstd[c]) / count;
    const auto g = RunF(dy + off, s.hw).cast<double>();
    RunD(out.dx + off, s.hw) = k * (count * g - sum_dy[std::size_t(c)] - xhat(c, off) * sum_dy_xhat[std::size_t(c)]);
  });
}

}  // namespace nb::bn
