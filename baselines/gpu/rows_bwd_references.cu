#include "baselines/gpu/rows_bwd_references.hpp"

#include <cmath>
#include <vector>

#include "harness/portable_math.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"
#include "harness/validation/slice_reduce.cuh"

namespace nb::gpu {
namespace {

// xhat = (x - mean) * rstd of element (row, j), the mean 0 for RMSNorm.
NB_HD inline double xhat(const RowsBwdTensors& in, std::int64_t row, std::int64_t j) {
  return (double(in.x[row * in.n + j]) - (in.mean ? double(in.mean[row]) : 0.0)) * double(in.rstd[row]);
}

// g = dy * w of element (row, j).
NB_HD inline double g(const RowsBwdTensors& in, std::int64_t row, std::int64_t j) {
  return double(in.dy[row * in.n + j]) * double(in.w[j]);
}

// The terms the backward sums, at element (row, j) of the (m, n) tensors: g and g * xhat over a
// row (dx's means), dy * xhat and dy over a column (dw and db).
struct GTerm {
  RowsBwdTensors in;
  NB_HD double operator()(std::int64_t row, std::int64_t j) const { return g(in, row, j); }
};
struct GXhatTerm {
  RowsBwdTensors in;
  NB_HD double operator()(std::int64_t row, std::int64_t j) const { return g(in, row, j) * xhat(in, row, j); }
};
struct DyXhatTerm {
  RowsBwdTensors in;
  NB_HD double operator()(std::int64_t row, std::int64_t j) const {
    return double(in.dy[row * in.n + j]) * xhat(in, row, j);
  }
};
struct DyTerm {
  RowsBwdTensors in;
  NB_HD double operator()(std::int64_t row, std::int64_t j) const { return double(in.dy[row * in.n + j]); }
};
// |term|, for the conditions' scales.
template <class Term>
struct Magnitude {
  Term term;
  NB_HD double operator()(std::int64_t row, std::int64_t j) const { return fabs(term(row, j)); }
};

// sum_j term(row, j) for every row, and sum_row term(row, column) for every column.
template <class Ex, class Term>
Scratch<double> row_sums(Ex& ex, const RowsBwdTensors& in, Term term) {
  return slice_sums(ex, in.m, in.n, term);
}
template <class Ex, class Term>
Scratch<double> column_sums(Ex& ex, const RowsBwdTensors& in, Term term) {
  return slice_sums(ex, in.n, in.m, [=] NB_HD(std::int64_t column, std::int64_t row) { return term(row, column); });
}

// The sum of term(row, j) over the whole (m, n) tensor, on the host.
template <class Ex, class Term>
double total(Ex& ex, const RowsBwdTensors& in, Term term) {
  const Scratch<double> rows = row_sums(ex, in, term);
  const double* per_row = rows.get();
  const Scratch<double> all =
      slice_sums(ex, 1, in.m, [=] NB_HD(std::int64_t, std::int64_t row) { return per_row[row]; });
  return ex.to_host(all.get(), 1)[0];
}

template <class Ex>
void copy(Ex& ex, const Scratch<double>& from, double* to, std::int64_t n) {
  const double* f = from.get();
  ex.each(n, [=] NB_HD(std::int64_t i) { to[i] = f[i]; });
}

// cpu::input_gradient_condition: ||T|| / ||dx|| over the elements where both are finite, with
// T = rstd (|g| + mean|g| + |xhat| mean|g xhat|) (mean|g| for LayerNorm only).
template <class Ex>
double input_gradient_condition(Ex& ex, RowsBwdTensors in, const double* dx) {
  const std::int64_t n = in.n;
  const bool layer = in.mean != nullptr;
  const Scratch<double> abs_g = row_sums(ex, in, Magnitude<GTerm>{{in}});
  const Scratch<double> abs_gx = row_sums(ex, in, Magnitude<GXhatTerm>{{in}});
  const double* ag = abs_g.get();
  const double* agx = abs_gx.get();
  const auto scale = [=] NB_HD(std::int64_t row, std::int64_t j) {
    const double mean_abs_g = layer ? ag[row] / double(n) : 0.0, mean_abs_gx = agx[row] / double(n);
    return fabs(double(in.rstd[row])) * (fabs(g(in, row, j)) + mean_abs_g + fabs(xhat(in, row, j)) * mean_abs_gx);
  };
  const auto counted = [=] NB_HD(std::int64_t row, std::int64_t j) {
    return portable::is_finite(scale(row, j)) && portable::is_finite(dx[row * n + j]);
  };
  const double scale2 = total(ex, in, [=] NB_HD(std::int64_t row, std::int64_t j) {
    const double t = scale(row, j);
    return counted(row, j) ? t * t : 0.0;
  });
  const double value2 = total(ex, in, [=] NB_HD(std::int64_t row, std::int64_t j) {
    const double ref = dx[row * n + j];
    return counted(row, j) ? ref * ref : 0.0;
  });
  return cpu::normwise_ratio(scale2, value2);
}

// cpu::column_sum_condition of a column sum `reference` whose terms are term(row, column).
template <class Ex, class Term>
double column_sum_condition(Ex& ex, const RowsBwdTensors& in, const double* reference, const cpu::Comparison& c,
                            Term term) {
  const Scratch<double> abs_sums = column_sums(ex, in, Magnitude<Term>{term});
  const std::vector<double> host_reference = ex.to_host(reference, in.n);
  return cpu::column_sum_condition(ex.to_host(abs_sums.get(), in.n), host_reference.data(), c);
}

}  // namespace

template <class Ex>
void norm_row_statistics(Ex& ex, stored::Tensor x, float* mean, float* rstd, std::int64_t m, std::int64_t n,
                         double eps) {
  // The centre of each row's squares: its mean for LayerNorm, 0 for RMSNorm.
  const Scratch<double> centres = ex.template scratch<double>(m);
  double* centre = centres.get();
  if (mean) {
    const Scratch<double> sums =
        slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) { return double(x[row * n + j]); });
    const double* sum = sums.get();
    ex.each(m, [=] NB_HD(std::int64_t row) {
      centre[row] = sum[row] / double(n);
      mean[row] = float(centre[row]);
    });
  }
  const Scratch<double> squares = slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) {
    const double d = double(x[row * n + j]) - centre[row];
    return d * d;
  });
  const double* sq = squares.get();
  ex.each(m, [=] NB_HD(std::int64_t row) { rstd[row] = float(1.0 / sqrt(sq[row] / double(n) + eps)); });
}

template <class Ex>
void norm_rows_backward(Ex& ex, RowsBwdTensors in, double* dx, double* dw, double* db) {
  const std::int64_t n = in.n;
  const bool layer = in.mean != nullptr;
  const Scratch<double> sums_g = row_sums(ex, in, GTerm{in}), sums_gx = row_sums(ex, in, GXhatTerm{in});
  const double* sg = sums_g.get();
  const double* sgx = sums_gx.get();
  ex.each(in.m * n, [=] NB_HD(std::int64_t i) {
    const std::int64_t row = i / n, j = i % n;
    const double mean_g = layer ? sg[row] / double(n) : 0.0, mean_gx = sgx[row] / double(n);
    dx[i] = double(in.rstd[row]) * (g(in, row, j) - mean_g - xhat(in, row, j) * mean_gx);
  });
  copy(ex, column_sums(ex, in, DyXhatTerm{in}), dw, n);
  if (db) copy(ex, column_sums(ex, in, DyTerm{in}), db, n);
}

template <class Ex>
RowsBwdConditions norm_rows_backward_conditions(Ex& ex, RowsBwdTensors in, const double* dx, const double* dw,
                                                const double* db, const cpu::Comparison& comparison) {
  RowsBwdConditions c;
  c.dx = input_gradient_condition(ex, in, dx);
  c.dw = column_sum_condition(ex, in, dw, comparison, DyXhatTerm{in});
  if (db) c.db = column_sum_condition(ex, in, db, comparison, DyTerm{in});
  return c;
}

#define NB_INSTANTIATE(Ex)                                                                                            \
  template void norm_row_statistics<Ex>(Ex&, stored::Tensor, float*, float*, std::int64_t, std::int64_t, double);   \
  template void norm_rows_backward<Ex>(Ex&, RowsBwdTensors, double*, double*, double*);                              \
  template RowsBwdConditions norm_rows_backward_conditions<Ex>(Ex&, RowsBwdTensors, const double*, const double*,   \
                                                               const double*, const cpu::Comparison&);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
