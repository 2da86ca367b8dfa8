#include "baselines/cpu/batchnorm_reference.hpp"

#include <Eigen/Core>
#include <cmath>

#include "harness/parallel.hpp"

namespace nb::bn {
namespace {

using ArrayD = Eigen::ArrayXd;
using RunF = Eigen::Map<const Eigen::ArrayXf>;
using RunD = Eigen::Map<Eigen::ArrayXd>;

// Calls f(c, offset) for every contiguous run (one n, one channel: hw values) of the channels
// [c0, c1), n outermost, so the 1d layout walks rows and stays cache friendly.
template <class F>
void for_each_run(const Shape& s, std::int64_t c0, std::int64_t c1, F f) {
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t c = c0; c < c1; ++c) f(c, (n * s.c + c) * s.hw);
}

// Runs body(c0, c1) over chunks of channels on all cores.
template <class F>
void over_channels(const Shape& s, F body) {
  parallel_for(s.c, [&](std::int64_t c0, std::int64_t c1) { body(c0, c1); }, 1);
}

}  // namespace

ChannelMoments channel_moments(const Shape& s, const float* x) {
  ChannelMoments m{std::vector<double>(s.c), std::vector<double>(s.c)};
  const double count = double(s.count());
  over_channels(s, [&](std::int64_t c0, std::int64_t c1) {
    ArrayD sum = ArrayD::Zero(c1 - c0), sq = ArrayD::Zero(c1 - c0);
    for_each_run(s, c0, c1, [&](std::int64_t c, std::int64_t off) {
      sum[c - c0] += RunF(x + off, s.hw).cast<double>().sum();
    });
    const ArrayD mean = sum / count;
    for_each_run(s, c0, c1, [&](std::int64_t c, std::int64_t off) {
      sq[c - c0] += (RunF(x + off, s.hw).cast<double>() - mean[c - c0]).square().sum();
    });
    for (std::int64_t c = c0; c < c1; ++c) {
      m.mean[c] = mean[c - c0];
      m.var[c] = sq[c - c0] / count;
    }
  });
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
  over_channels(s, [&](std::int64_t c0, std::int64_t c1) {
    for_each_run(s, c0, c1, [&](std::int64_t c, std::int64_t off) {
      const double scale = out.save_invstd[c] * double(gamma[c]);
      RunD(out.y + off, s.hw) = (RunF(x + off, s.hw).cast<double>() - out.save_mean[c]) * scale + double(beta[c]);
    });
  });
}

void backward_reference(const Shape& s, const float* x, const float* dy, const float* gamma, const float* save_mean,
                        const float* save_invstd, const BackwardOutputs& out) {
  const double count = double(s.count());
  over_channels(s, [&](std::int64_t c0, std::int64_t c1) {
    ArrayD sum_dy = ArrayD::Zero(c1 - c0), sum_dy_xhat = ArrayD::Zero(c1 - c0);
    auto xhat = [&](std::int64_t c, std::int64_t off) {
      return (RunF(x + off, s.hw).cast<double>() - double(save_mean[c])) * double(save_invstd[c]);
    };
    for_each_run(s, c0, c1, [&](std::int64_t c, std::int64_t off) {
      const auto g = RunF(dy + off, s.hw).cast<double>();
      sum_dy[c - c0] += g.sum();
      sum_dy_xhat[c - c0] += (g * xhat(c, off)).sum();
    });
    for (std::int64_t c = c0; c < c1; ++c) {
      out.dbeta[c] = sum_dy[c - c0];
      out.dgamma[c] = sum_dy_xhat[c - c0];
    }
    for_each_run(s, c0, c1, [&](std::int64_t c, std::int64_t off) {
      const double k = double(gamma[c]) * double(save_invstd[c]) / count;
      const auto g = RunF(dy + off, s.hw).cast<double>();
      RunD(out.dx + off, s.hw) = k * (count * g - sum_dy[c - c0] - xhat(c, off) * sum_dy_xhat[c - c0]);
    });
  });
}

}  // namespace nb::bn
