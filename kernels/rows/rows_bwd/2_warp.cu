// Warp per row, then columns: one warp per row adds its two row sums with 5 xor-shuffles and
// writes dx (re-reading the row from L1/L2); a second kernel recomputes dy * xhat by slabs of rows,
// 32 columns per block, into partial column sums that a third adds in order. x and dy are read
// twice from DRAM.
#include <algorithm>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/merge.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/column_totals.hpp"

namespace nb::rows_bwd {
namespace {

using namespace dev;
using nb::dev::from_float;
using nb::dev::to_float;

constexpr int kWarps = 8;                              // rows per block of the dx kernel
constexpr int kColumns = 32, kSlices = 8;              // the column kernel's block: 32 columns x 8 row slices
constexpr long long kMinSlabRows = 64;                 // rows per slab, at least
constexpr long long kColumnBlocksWanted = 2048;        // column blocks x slabs, about

template <bool kLayer, class T>
__global__ void __launch_bounds__(kWarps * 32) warp_rows(Args<T> a) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * kWarps;
  for (long long row = blockIdx.x * (long long)kWarps + threadIdx.x / 32; row < a.m; row += warps) {
    const RowStats st = row_stats<kLayer>(a, row);
    const T* x = a.x + row * a.n;
    const T* dy = a.dy + row * a.n;
    RowSums s{};
    for (long long j = lane; j < a.n; j += 32) {
      const float g = output_grad(to_float(dy[j]), to_float(a.w[j]));
      s.g += g;
      s.gx += g * xhat<kLayer>(to_float(x[j]), st);
    }
    s = nb::dev::warp_merge(s);
    const float inv_n = 1.0f / float(a.n);
    const float mean_g = kLayer ? s.g * inv_n : 0.0f, mean_gx = s.gx * inv_n;
    for (long long j = lane; j < a.n; j += 32) {
      const float g = output_grad(to_float(dy[j]), to_float(a.w[j]));
      a.dx[row * a.n + j] = from_float<T>(input_grad(g, xhat<kLayer>(to_float(x[j]), st), st.rstd, mean_g, mean_gx));
    }
  }
}

// Slab s of rows [s*m/slabs, (s+1)*m/slabs): its column sums of dy * xhat (and dy) into partial
// row s of each sum.
template <bool kLayer, class T>
__global__ void __launch_bounds__(kColumns* kSlices) slab_columns(Args<T> a, long long slabs, float* partials) {
  __shared__ float dw_slices[kSlices][kColumns + 1], db_slices[kSlices][kColumns + 1];
  const long long slab = blockIdx.y;
  const long long first = slab * a.m / slabs, end = (slab + 1) * a.m / slabs;
  for (long long col0 = blockIdx.x * (long long)kColumns; col0 < a.n; col0 += gridDim.x * (long long)kColumns) {
    const long long col = col0 + threadIdx.x;
    float dw = 0.0f, db = 0.0f;
    if (col < a.n)
      for (long long row = first + threadIdx.y; row < end; row += kSlices) {
        const float dy = to_float(a.dy[row * a.n + col]);
        dw += dy * xhat<kLayer>(to_float(a.x[row * a.n + col]), row_stats<kLayer>(a, row));
        db += dy;
      }
    dw_slices[threadIdx.y][threadIdx.x] = dw;
    db_slices[threadIdx.y][threadIdx.x] = db;
    __syncthreads();
    if (threadIdx.y == 0 && col < a.n) {
      float dw_total = dw_slices[0][threadIdx.x], db_total = db_slices[0][threadIdx.x];
      for (int k = 1; k < kSlices; ++k) dw_total += dw_slices[k][threadIdx.x], db_total += db_slices[k][threadIdx.x];
      partials[slab * a.n + col] = dw_total;
      if (kLayer) partials[(slabs + slab) * a.n + col] = db_total;
    }
    __syncthreads();
  }
}

long long column_blocks(long long n) { return rms::ceil_div_ll(n, kColumns); }

// Enough slabs that column blocks x slabs fills the GPU, each of at least kMinSlabRows rows.
long long slab_count(long long m, long long n) {
  const long long wanted = std::max(1LL, kColumnBlocksWanted / column_blocks(n));
  return std::clamp(std::min(wanted, rms::ceil_div_ll(m, kMinSlabRows)), 1LL, 65535LL);
}

template <bool kLayer, class T>
void launch_warp(const Args<T>& a, DType dtype, float* partials, cudaStream_t stream) {
  warp_rows<kLayer, T><<<rms::grid_blocks(rms::ceil_div_ll(a.m, kWarps)), kWarps * 32, 0, stream>>>(a);
  NB_CHECK_LAUNCH();
  const long long slabs = slab_count(a.m, a.n);
  const dim3 grid(rms::grid_blocks(column_blocks(a.n)), unsigned(slabs));
  slab_columns<kLayer, T><<<grid, dim3(kColumns, kSlices), 0, stream>>>(a, slabs, partials);
  NB_CHECK_LAUNCH();
  void* const out[2] = {a.dw, a.db};
  launch_column_totals(dtype, partials, slabs, a.n, kLayer ? 2 : 1, out, stream);
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant(const Layout& layout) {
  return make_kernel_variant(
      {"warp", "warp",
       "one warp per row (xor-shuffle row sums, then dx); column sums of dy * xhat recomputed by slabs of rows, "
       "added in order by a second pass",
       [layout](const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) {
         dispatch_storage(p.dtype, [&](auto type) {
           using T = decltype(type);
           float* partials = static_cast<float*>(workspace);
           if (layout.layer()) launch_warp<true>(args_of<T>(layout, p, t), p.dtype, partials, stream);
           else launch_warp<false>(args_of<T>(layout, p, t), p.dtype, partials, stream);
         });
       },
       nullptr,
       [layout](const Problem& p) {
         const Shape s = Shape::of(p);
         return std::size_t(slab_count(s.m, s.n)) * std::size_t(s.n) * sizeof(float) * std::size_t(layout.column_sums());
       }});
}

}  // namespace nb::rows_bwd
