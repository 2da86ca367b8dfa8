#pragma once
// How 4_register_row.cu lays a row over threads: packs of 4 floats when it can (else 1), as
// many blocks per row (a thread-block cluster) as keep each block at <= 8192 floats, threads
// enough for at most 32 floats each in registers (8 packs of 4, or 16 single floats), and
// short rows several to a block. Host code, so the unit tests can check that every row length
// gets a plan that covers it.
#include <cstdint>

namespace nb::rmsnorm_rows {

// Registers per thread for the row: 8 packs of 4, or 16 single floats (each of which needs its
// own address and predicate: 32 of them spill under the 64-register cap of 1024-thread blocks).
inline constexpr int max_floats_per_thread(int vec) { return vec == 4 ? 32 : 16; }
inline constexpr std::int64_t kFloatsPerBlock = 8192;  // 256 threads x 32 floats before a row is split
inline constexpr int kMaxParts = 8;                    // the portable cluster size
inline constexpr int kMaxLanes = 1024;
inline constexpr int kLaneGroupThreads = 128;          // block size when several rows share a block

struct RowPlan {
  int vec = 1;                         // floats per pack: 4 (16-byte accesses) or 1
  std::int64_t packs = 0;              // packs per row
  int parts = 1;                       // blocks per row; a thread-block cluster when > 1
  std::int64_t packs_per_part = 0;
  int lanes = 1;                       // threads per row and part: blockDim.x
  int rows_per_block = 1;              // blockDim.y; > 1 only when lanes <= 32
  int packs_per_thread = 0;            // a power of two within max_floats_per_thread; 0: streamed twice

  bool streamed() const { return packs_per_thread == 0; }
  bool lane_groups() const { return rows_per_block > 1; }  // lanes <= 32: shuffles only
  std::int64_t capacity() const;       // floats one row's threads can hold (streamed: unbounded)
};

// packs_of_4: n % 4 == 0 and every pointer 16-byte aligned.
RowPlan plan_register_row(std::int64_t n, bool packs_of_4);

}  // namespace nb::rmsnorm_rows
