#pragma once
// How the TMA-fed rows (rmsnorm_rows' `tma_row`, kernel.cuh) lay a row over a
// cluster: each CTA takes a contiguous part of every row of its band, a producer thread copies the
// part of the next rows into a ring of shared-memory stages, and consumer warps hold kPacksPerThread
// 16-byte packs a thread of it in registers from the statistics to the write. Host code, so the unit
// tests can check that every row length gets a plan that covers it, or a reason.
#include <cstddef>
#include <cstdint>
#include <string>

namespace nb::rows::tma {

inline constexpr int kPacksPerThread = 4;     // 64 bytes of x a consumer thread a row
inline constexpr int kMaxConsumers = 512;     // a part of up to 32 KB of x
inline constexpr int kMaxParts = 16;          // a non-portable cluster (Hopper allows 16)
inline constexpr int kStages = 3;             // the row being read and two in flight
inline constexpr unsigned kStageAlign = 128;  // each stage from a 128-byte boundary
inline constexpr std::int64_t kMinBandRounds = 4;  // rows a cluster takes at least

struct Plan {
  int vec = 1;                      // elements per 16-byte pack
  std::int64_t packs = 0;           // packs per row
  int parts = 1;                    // CTAs per row: a cluster when > 1
  std::int64_t packs_per_part = 0;  // the last part may hold fewer
  int consumers = 0;                // consumer threads a CTA (a multiple of 32); blockDim.x = consumers + 32
  std::size_t shared_bytes = 0;     // dynamic shared memory: the stages
  std::string unsupported;          // why no plan exists for this row; "" when one does

  int threads() const { return consumers + 32; }
  std::int64_t part_bytes() const { return packs_per_part * 16; }
};

// element_bytes: the storage size (4, or 2 for bf16 and fp16). Rows must be whole 16-byte packs.
Plan plan_tma_rows(std::int64_t n, int element_bytes);

// Clusters of the plan that take rows: as many as run at once (`resident`), while each takes at
// least kMinBandRounds rows; one at least.
std::int64_t band_count(std::int64_t m, std::int64_t resident);

}  // namespace nb::rows::tma
