// Naive: one thread per row walks its N values twice, the two row sums (in double) and then dx;
// one thread per column walks the M rows for dw (and db), in double. Neighbouring threads of the
// row kernel read addresses N apart, so every warp load touches 32 cache lines.
#include <algorithm>

#include "harness/cuda_check.hpp"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rows_bwd/args.cuh"

namespace nb::rows_bwd {
namespace {

using namespace dev;
using nb::dev::from_float;
using nb::dev::to_float;

constexpr int kThreads = 128;

template <bool kLayer, class T>
__global__ void __launch_bounds__(kThreads) naive_rows(Args<T> a) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x; row < a.m; row += stride) {
    const RowStats st = row_stats<kLayer>(a, row);
    const T* x = a.x + row * a.n;
    const T* dy = a.dy + row * a.n;
    double sum_g = 0.0, sum_gx = 0.0;
    for (long long j = 0; j < a.n; ++j) {
      const float g = output_grad(to_float(dy[j]), to_float(a.w[j]));
      sum_g += g;
      sum_gx += double(g) * xhat<kLayer>(to_float(x[j]), st);
    }
    const float mean_g = kLayer ? float(sum_g / double(a.n)) : 0.0f, mean_gx = float(sum_gx / double(a.n));
    for (long long j = 0; j < a.n; ++j) {
      const float g = output_grad(to_float(dy[j]), to_float(a.w[j]));
      a.dx[row * a.n + j] = from_float<T>(input_grad(g, xhat<kLayer>(to_float(x[j]), st), st.rstd, mean_g, mean_gx));
    }
  }
}

template <bool kLayer, class T>
__global__ void __launch_bounds__(kThreads) naive_columns(Args<T> a) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long col = blockIdx.x * (long long)blockDim.x + threadIdx.x; col < a.n; col += stride) {
    double dw = 0.0, db = 0.0;
    for (long long row = 0; row < a.m; ++row) {
      const float dy = to_float(a.dy[row * a.n + col]);
      dw += double(dy) * xhat<kLayer>(to_float(a.x[row * a.n + col]), row_stats<kLayer>(a, row));
      db += dy;
    }
    a.dw[col] = from_float<T>(float(dw));
    if (kLayer) a.db[col] = from_float<T>(float(db));
  }
}

template <bool kLayer, class T>
void launch_naive(const Args<T>& a, cudaStream_t stream) {
  naive_rows<kLayer, T><<<rms::grid_blocks(rms::ceil_div_ll(a.m, kThreads)), kThreads, 0, stream>>>(a);
  NB_CHECK_LAUNCH();
  naive_columns<kLayer, T><<<rms::grid_blocks(rms::ceil_div_ll(a.n, kThreads)), kThreads, 0, stream>>>(a);
  NB_CHECK_LAUNCH();
}

// One thread's serial loop over more than 512K rows (or row elements) takes about a second per
// launch: the sweep's 2^20 rows of 256 among them.
Support serial_length_limit(const Problem& p) {
  constexpr long long kLimit = 1LL << 19;
  if (std::max(p.dim("m"), p.dim("n")) <= kLimit) return Support::yes();
  return Support::no("one thread per row and per column: a serial loop over more than 512K values takes about a second");
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant(const Layout& layout) {
  return make_kernel_variant(
      {"naive", "naive", "one thread per row (row sums in double, then dx), one thread per column for the column sums",
       [layout](const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
         dispatch_storage(p.dtype, [&](auto type) {
           using T = decltype(type);
           if (layout.layer()) launch_naive<true>(args_of<T>(layout, p, t), stream);
           else launch_naive<false>(args_of<T>(layout, p, t), stream);
         });
       },
       serial_length_limit});
}

}  // namespace nb::rows_bwd
