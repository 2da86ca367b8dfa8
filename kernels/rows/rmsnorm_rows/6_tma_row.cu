// TMA-fed rows: a producer thread's bulk copies of each CTA's part of the next rows into three
// shared-memory stages, consumer warps of up to four 16-byte packs a thread that hold the row in
// registers from the sum of squares to the write; a row over a cluster of up to 16 CTAs, its sums
// exchanged by st.async (kernels/rows/tma_rows/). Rescales when x^2 overflows (claims `wide`).
#include <memory>

#include "kernels/primitives/alignment.cuh"
#include "kernels/rows/row_reducers.cuh"
#include "kernels/rows/rmsnorm_rows/spec.hpp"
#include "kernels/rows/tma_rows/variant.cuh"

namespace nb::rmsnorm_rows {
namespace {

template <class T>
struct Tensors {
  const T* x;
  const T* w;
  T* y;
};

// One consumer thread's row: w's packs held, y = x / rms * w from the row's registers.
template <class T, int VEC, int PPT>
struct TmaRow {
  using Tensors = rmsnorm_rows::Tensors<T>;
  using Word = dev::PackWord<T, VEC>;
  Word w[PPT];

  template <class Mine>
  __device__ TmaRow(const Tensors& t, long long first, long long stride, Mine mine) {
    dev::load_pack_words<T, VEC>(t.w + first, stride, mine, w);
  }

  template <class Mine>
  __device__ void row(const Tensors& t, const rows::tma::Geometry& g, long long row, const Word (&x)[PPT], Mine mine,
                      long long first, long long stride, rows::tma::ConsumerReducer& reduce) const {
    const auto each_pack = [&](auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k) f(dev::rewiden<T, VEC>(x[k]));  // zeros where not mine
    };
    const float inv = rows::row_inv_rms<VEC>(each_pack, reduce, g.inv_n, g.eps);
#pragma unroll
    for (int k = 0; k < PPT; ++k) {
      if (!mine(k)) continue;
      const dev::FloatPack<VEC> v = dev::rewiden<T, VEC>(x[k]), wp = dev::widen<T, VEC>(w[k]);
      dev::FloatPack<VEC> out;
#pragma unroll
      for (int i = 0; i < VEC; ++i) out.v[i] = v.v[i] * inv * wp.v[i];
      dev::store_from_float<T, VEC>(t.y + row * g.n + first + k * stride, out);
    }
  }
};

struct RmsOp {
  template <class T, int VEC, int PPT>
  using Row = TmaRow<T, VEC, PPT>;
  static std::string idea() {
    return "rows fed by TMA: a producer thread's bulk copies of each CTA's part of the next rows into three "
           "shared-memory stages, consumer warps of <= 4 16-byte packs a thread holding the row in registers, a row "
           "over a cluster of <= 16 CTAs (sums by st.async); rows of 16-byte packs; x read once";
  }
  static std::vector<Distribution> claims() { return {Distribution::wide}; }
  template <class T>
  static Tensors<T> tensors(const Problem&, const DeviceTensors& d) {
    return {d.ptr<const T>(X), d.ptr<const T>(W), d.ptr<T>(Y)};
  }
  template <class T>
  static bool aligned16(const Tensors<T>& t) {
    return dev::aligned16(t.x, t.w) && dev::aligned16(t.y);
  }
};

}  // namespace

std::unique_ptr<Variant> make_tma_row_variant() { return std::make_unique<rows::tma::TmaRowVariant<RmsOp>>(); }

}  // namespace nb::rmsnorm_rows
