#include "baselines/cpu/norm_rows_bwd_reference.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "harness/parallel.hpp"

namespace nb::cpu {
namespace {

// The column sums dw and db are added per chunk of rows, then over the chunks in order: the same
// chunks whatever the thread count, so the reference is the same bits on every host.
constexpr std::int64_t kRowChunks = 64;

void for_rows(std::int64_t m, std::int64_t n, const std::function<void(std::int64_t)>& row) {
  parallel_for(m, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) row(r);
  }, std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(n, 1)));
}

// dx of one row; adds dy * xhat and dy to the chunk's column sums.
void backward_row(const RowsBwdInputs& in, std::int64_t r, double* dx, double* dw_sum, double* db_sum) {
  const float* x = in.x + r * in.n;
  const float* dy = in.dy + r * in.n;
  const double mean = in.mean ? double(in.mean[r]) : 0.0, rstd = in.rstd[r];
  const auto xhat = [&](std::int64_t j) { return (double(x[j]) - mean) * rstd; };
  double sum_g = 0, sum_gx = 0;
  for (std::int64_t j = 0; j < in.n; ++j) {
    const double g = double(dy[j]) * double(in.w[j]);
    sum_g += g;
    sum_gx += g * xhat(j);
  }
  const double mean_g = in.mean ? sum_g / double(in.n) : 0.0, mean_gx = sum_gx / double(in.n);
  for (std::int64_t j = 0; j < in.n; ++j) {
    const double g = double(dy[j]) * double(in.w[j]);
    dx[j] = rstd * (g - mean_g - xhat(j) * mean_gx);
    dw_sum[j] += double(dy[j]) * xhat(j);
    if (db_sum) db_sum[j] += double(dy[j]);
  }
}

}  // namespace

RowStatistics layernorm_row_statistics(const float* x, std::int64_t m, std::int64_t n, double eps) {
  RowStatistics s{std::vector<double>(std::size_t(m)), std::vector<double>(std::size_t(m))};
  for_rows(m, n, [&](std::int64_t r) {
    const float* row = x + r * n;
    double sum = 0, sq = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += row[j];
    const double mean = sum / double(n);
    for (std::int64_t j = 0; j < n; ++j) sq += (row[j] - mean) * (row[j] - mean);
    s.mean[std::size_t(r)] = mean;
    s.rstd[std::size_t(r)] = 1.0 / std::sqrt(sq / double(n) + eps);
  });
  return s;
}

RowStatistics rmsnorm_row_statistics(const float* x, std::int64_t m, std::int64_t n, double eps) {
  RowStatistics s{{}, std::vector<double>(std::size_t(m))};
  for_rows(m, n, [&](std::int64_t r) {
    const float* row = x + r * n;
    double sq = 0;
    for (std::int64_t j = 0; j < n; ++j) sq += double(row[j]) * double(row[j]);
    s.rstd[std::size_t(r)] = 1.0 / std::sqrt(sq / double(n) + eps);
  });
  return s;
}

void norm_rows_backward_reference(const RowsBwdInputs& in, const RowsBwdOutputs& out) {
  const std::int64_t chunks = std::min(in.m, kRowChunks);
  const std::size_t n = std::size_t(in.n);
  std::vector<double> dw_sums(std::size_t(chunks) * n, 0.0), db_sums(out.db ? dw_sums.size() : 0, 0.0);
  parallel_for(chunks, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      double* dw_sum = dw_sums.data() + std::size_t(c) * n;
      double* db_sum = out.db ? db_sums.data() + std::size_t(c) * n : nullptr;
      for (std::int64_t r = c * in.m / chunks; r < (c + 1) * in.m / chunks; ++r)
        backward_row(in, r, out.dx + r * in.n, dw_sum, db_sum);
    }
  }, 1);
  parallel_for(in.n, [&](std::int64_t j0, std::int64_t j1) {
    for (std::int64_t j = j0; j < j1; ++j) {
      double dw = 0, db = 0;
      for (std::int64_t c = 0; c < chunks; ++c) {
        dw += dw_sums[std::size_t(c) * n + std::size_t(j)];
        if (out.db) db += db_sums[std::size_t(c) * n + std::size_t(j)];
      }
      out.dw[j] = dw;
      if (out.db) out.db[j] = db;
    }
  });
}

}  // namespace nb::cpu
