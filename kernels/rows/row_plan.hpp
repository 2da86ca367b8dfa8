#pragma once
// How 4_register_row.cu lays a row over threads, counted in elements and bytes so that one plan
// serves fp32 (4-byte) and bf16/fp16 (2-byte) storage. A pack is 16 bytes when the row allows it (4
// floats, 8 bf16 or fp16), else one element. Rows of up to 16384 elements in packs (8192 as single
// elements) live in one block's registers: threads enough for at most 32 elements each, short rows
// several to a block; rows of up to 32768 2-byte elements in packs take one block of 512 threads at
// 64 each (the kernels hold those rows as stored and widen them at each pass); rows of up to 65536
// of them in packs may take one block that holds 64 values a thread so and copies 64 more into the
// thread's own shared-memory slots (the held split, where the kernel family has it). Longer rows of
// 16-byte packs are staged in shared memory over a persistent grid of clusters of up to 8 blocks
// (staged_rows.cu), two slices of x (this row, the next one in flight) and one of w per block, each
// at most 64 KB. What fits neither is split over a cluster in registers, and rows too long for that
// stream their part twice. Host code, so the unit tests can check that every row length gets a plan
// that covers it.
#include <cstdint>

#include "kernels/primitives/held_rows.hpp"

namespace nb::rows {

inline constexpr int kPackBytes = 16;  // one LDG.128 / STG.128 / cp.async of 16 bytes

// Registers per thread for the row: 32 elements in packs, or 16 single elements (each of which
// needs its own address and predicate: 32 of them spill under the 64-register cap of
// 1024-thread blocks).
inline constexpr int max_elements_per_thread(int vec) { return vec > 1 ? 32 : 16; }
// A block keeps at most 512 threads' worth of a row in registers: at the 64-register cap two such
// blocks fit an SM, so one block's reduction never leaves the SM without loads in flight.
inline constexpr int kMaxRegisterBlockLanes = held::kMaxLanes;
inline constexpr std::int64_t block_elements(int vec) { return kMaxRegisterBlockLanes * max_elements_per_thread(vec); }
// The kernels hold these rows as stored, so 2-byte values in 16-byte packs take half a register:
// one block of 512 lanes holds a row of up to 32768 of them, 64 a thread in 32 registers. Only
// rows past block_elements take that budget; shorter ones keep theirs and the lanes it gives.
inline constexpr int kMaxHeldPairedElementsPerThread = held::kValuesPerThread;
inline constexpr int max_held_elements_per_thread(int element_bytes, int vec) {
  return element_bytes == 2 && vec > 1 ? kMaxHeldPairedElementsPerThread : max_elements_per_thread(vec);
}
inline constexpr std::int64_t held_block_elements(int element_bytes, int vec) {
  return std::int64_t{kMaxRegisterBlockLanes} * max_held_elements_per_thread(element_bytes, vec);
}
// Whether a thread's share of vec x packs_per_thread values is past the 32-value budget: a held row,
// which the kernels keep as stored (the others as fp32 values).
inline constexpr bool holds_as_stored(int vec, int packs_per_thread) {
  return vec * packs_per_thread > max_elements_per_thread(vec);
}
// The held split: a thread's first kHeldSplitPacks packs held as stored (a held row's 64 values),
// as many more in its own 16-byte slots of shared memory (64 KB a block of 512 lanes: two blocks an
// SM), so 2-byte rows of up to 65536 values in 16-byte packs take one block.
inline constexpr int kHeldSplitPacks = held::kSlotPacks;
inline constexpr std::int64_t held_split_elements(int element_bytes, int vec) {
  return element_bytes == 2 && vec > 1 ? std::int64_t{kMaxRegisterBlockLanes} * 2 * kHeldSplitPacks * vec : 0;
}
inline constexpr int kMaxHeldSplitSmemBytes = held::kMaxSlotBytes;
inline constexpr int kMaxParts = 8;                      // the portable cluster size
inline constexpr int kMaxLanes = 1024;
// Block size when several rows share a block: two warps. Against four, rmsnorm_rows' bf16 rows of
// 256-1024 measured 1.8% faster on the H200 (0.2611 -> 0.2564 ms at 512), level with torch.compile's
// one-warp blocks (0.2555); a block's slot frees when its last row ends, so fewer rows wait on it.
inline constexpr int kLaneGroupThreads = 64;

// Staged rows: a cluster splits a row until each block's slice is at most 32 KB (then two blocks
// fit an SM: 3 x 32 KB of shared memory each), or up to 64 KB at 8 blocks (one per SM).
inline constexpr std::int64_t kStagedSliceBytes = 32 * 1024;
inline constexpr std::int64_t kMaxStagedSliceBytes = 64 * 1024;
inline constexpr int kStagedSlices = 3;            // x of this row, x of the next row, w
inline constexpr int kStagedPacksPerThread = 8;    // 128 bytes of each slice per thread
// The most threads a staged block takes (a 64 KB slice at 8 packs a thread): layernorm_rows'
// staged kernel's launch bound, which leaves it 128 registers a thread for b's packs.
inline constexpr int kMaxStagedLanes = static_cast<int>(kMaxStagedSliceBytes / kPackBytes / kStagedPacksPerThread);
static_assert(kMaxStagedLanes == 512, "a staged block holds at most 512 threads");

enum class RowLayout {
  lane_groups,  // lanes (a power of two <= 32) per row, rows_per_block rows per block: shuffles only
  block,        // one block of lanes (a multiple of 32) per row, registers
  cluster,      // parts blocks per row (a thread-block cluster), registers
  staged,       // parts blocks per row, the slices in shared memory, a persistent grid
  streamed,     // parts blocks per row, each part read twice
  held_split,   // one block per row, half of each thread's packs held as stored, half in its slots
};

// The layouts a kernel family takes besides registers: its staged clusters (false when they cannot
// be resident on the device) and the held split (rmsnorm_rows has it; layernorm_rows' three
// passes over the row measured slower there than its staged clusters).
struct RowLayouts {
  bool staged = true;
  bool held_split = true;

  constexpr RowLayouts without_staged() const { return {false, held_split}; }
  constexpr RowLayouts without_held_split() const { return {staged, false}; }
};

struct RowPlan {
  int element_bytes = 4;               // storage: 4 (fp32) or 2 (bf16, fp16)
  int vec = 1;                         // elements per pack: 16 / element_bytes, or 1
  std::int64_t packs = 0;              // packs per row
  int parts = 1;                       // blocks per row; a thread-block cluster when > 1
  std::int64_t packs_per_part = 0;     // the last part may hold fewer
  int lanes = 1;                       // threads per row and part: blockDim.x
  int rows_per_block = 1;              // blockDim.y; > 1 only for lane groups
  int packs_per_thread = 0;            // registers: a power of two within the budget; staged: its share;
                                       // held split: 2 x kHeldSplitPacks
  RowLayout layout = RowLayout::block;

  bool streamed() const { return layout == RowLayout::streamed; }
  bool staged() const { return layout == RowLayout::staged; }
  bool held_split() const { return layout == RowLayout::held_split; }
  bool lane_groups() const { return layout == RowLayout::lane_groups; }
  int pack_bytes() const { return vec * element_bytes; }
  // Elements one row's threads can hold (streamed: unbounded).
  std::int64_t capacity() const;
  // Dynamic shared memory of one staged block: kStagedSlices slices of packs_per_part packs.
  std::int64_t staged_smem_bytes() const;
  // Dynamic shared memory of one held split block: kHeldSplitPacks slots a lane.
  std::int64_t held_split_smem_bytes() const;
};

// Staged rows take their rows from a counter where two blocks share an SM (slices of <= 32 KB), by
// the cluster's fixed share where one 64 KB block fills it. Measured on the H100 (layernorm_rows
// bf16 unless said, both orders in one call, docs/notes/memory-bound-round3.md): at 1024 x 262144
// (64 KB slices) the counter took 0.4933 ms and the share 0.4064; at 32 KB slices the share lost 6% at
// 8192 x 32768, 4096 x 65536 and fp32 4096 x 65536 and gained 1.6% at 2048 x 131072.
inline bool staged_rows_by_counter(const RowPlan& plan) {
  return plan.packs_per_part * plan.pack_bytes() <= kStagedSliceBytes;
}

// element_bytes: the storage size. packs16: the row length is a whole number of 16-byte packs
// and x, w, y are 16-byte aligned. allowed: the layouts the kernel family may take besides
// registers (without them the plan keeps the row in registers or streams it).
RowPlan plan_register_row(std::int64_t n, int element_bytes, bool packs16, RowLayouts allowed = {});

}  // namespace nb::rows
