// TMA-fed rows: a producer thread's bulk copies of each CTA's part of the next rows into three
// shared-memory stages, consumer warps of up to four 16-byte packs a thread that hold the row in
// registers from the statistics to the write, w's packs held for every row; a row over a
// cluster of up to 16 CTAs, each CTA's (count, mean, M2) merged by Chan's formula in one st.async
// round (kernels/rows/tma_rows/). Mean, then squared deviations; rescales when they overflow.
#include <memory>

#include "kernels/primitives/alignment.cuh"
#include "kernels/rows/layernorm_rows/row_math.cuh"
#include "kernels/rows/layernorm_rows/spec.hpp"
#include "kernels/rows/row_shape.hpp"
#include "kernels/rows/tma_rows/variant.cuh"

namespace nb::layernorm_rows {
namespace {

// One consumer thread's row: w's packs held (b's too took the bf16 and fp16 kernels past the
// 96-register cap of 544 threads: 84 bytes of spills), b's read at the write; the row's mean and
// rstd, then y from the row's registers; the cluster's first thread writes the row's statistics.
template <class T, int VEC, int PPT>
struct TmaRow {
  using Tensors = RowTensors<T>;
  using Word = dev::PackWord<T, VEC>;
  Word w[PPT];

  template <class Mine>
  __device__ TmaRow(const Tensors& t, long long first, long long stride, Mine mine) {
    dev::load_pack_words<T, VEC>(t.w + first, stride, mine, w);
  }

  template <class Mine>
  __device__ void row(const Tensors& t, const rows::tma::Geometry& g, long long row, const Word (&x)[PPT], Mine mine,
                      long long first, long long stride, float part_elements, rows::tma::ConsumerReducer& reduce,
                      bool leader) const {
    const auto each_pack = [&](auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k) f(dev::rewiden<T, VEC>(x[k]));  // zeros where not mine
    };
    const auto each_centered = [&](float mean, auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k)
        f(mine(k) ? centered(dev::rewiden<T, VEC>(x[k]), mean) : dev::zero_float_pack<VEC>());
    };
    const MeanRstd st = row_mean_rstd<VEC>(each_pack, each_centered, reduce, part_elements, g.inv_n, g.eps);
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (mine(k))
        dev::store_from_float<T, VEC>(t.y + row * g.n + first + k * stride,
                                      normalized(dev::rewiden<T, VEC>(x[k]), dev::widen<T, VEC>(w[k]),
                                                 dev::load_as_float<T, VEC>(t.b + first + k * stride), st.mean,
                                                 st.rstd));
    if (leader) {
      t.mean[row] = st.mean;
      t.rstd[row] = st.rstd;
    }
  }
};

struct LayerOp {
  template <class T, int VEC, int PPT>
  using Row = TmaRow<T, VEC, PPT>;
  static std::string idea() {
    return "rows fed by TMA: a producer thread's bulk copies of each CTA's part of the next rows into three "
           "shared-memory stages, consumer warps of <= 4 16-byte packs a thread holding the row in registers (w's packs "
           "held), a row over a cluster of <= 16 CTAs (Chan's merge by st.async); mean, then squared "
           "deviations; rows of 16-byte packs; x read once";
  }
  static std::vector<Distribution> claims() {
    return {Distribution::offset, Distribution::tiny_var, Distribution::wide};
  }
  template <class T>
  static RowTensors<T> tensors(const Problem&, const DeviceTensors& d) {
    return {d.ptr<const T>(X), d.ptr<const T>(W), d.ptr<const T>(B),
            d.ptr<T>(Y),       d.ptr<float>(MEAN), d.ptr<float>(RSTD)};
  }
  template <class T>
  static bool aligned16(const RowTensors<T>& t) {
    return dev::aligned16(t.x, t.w) && dev::aligned16(t.b, t.y);
  }
  static float eps(const Problem& p) { return rows::RowShape::of(p).eps; }
};

}  // namespace

std::unique_ptr<Variant> make_tma_row_variant() { return std::make_unique<rows::tma::TmaRowVariant<LayerOp>>(); }

}  // namespace nb::layernorm_rows
