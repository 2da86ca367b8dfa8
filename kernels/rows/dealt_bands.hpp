#pragma once
// Rows dealt into bands: band b of `bands` takes rows b, b + bands, b + 2 bands, ... of m, so the
// CTAs (or clusters) resident at once read neighbouring rows rather than rows a band apart, as
// contiguous bands had them. The TMA-fed forward rows (tma_rows/kernel.cuh) and the fused row
// backwards (rows_bwd/fused_geometry.cuh) walk their bands so; the host sizes with it too.
#include <cstdint>

namespace nb::rows {

// The row of x that is band `band`'s row r.
constexpr std::int64_t band_row(std::int64_t band, std::int64_t bands, std::int64_t r) { return band + r * bands; }

// The rows of band `band`: the r with band_row(band, bands, r) < m.
constexpr std::int64_t band_rows(std::int64_t m, std::int64_t band, std::int64_t bands) {
  return band < m ? (m - band + bands - 1) / bands : 0;
}

}  // namespace nb::rows
