#pragma once
// How the softmax kernels lay a row over threads, as host code the unit tests can check: the pack
// width every row allows, the onchip variant's cluster and slice, and the dispatch variant's
// choice between a register path (lane groups or a block per row) and the onchip path. Sizes are
// in bytes where they bound registers or shared memory, so one plan serves fp32, bf16 and fp16.
#include <cstdint>

#include "kernels/primitives/held_rows.hpp"

namespace nb::softmax {

// The widest pack (a power of two of elements, at most 16 bytes) on which every row of an (m, n)
// tensor starts, for tensors at addresses x and y: n is a multiple of it and both addresses are
// aligned to its bytes. 1 when n is odd.
int row_pack_width(std::int64_t n, int element_bytes, std::uintptr_t x, std::uintptr_t y);

// --- onchip (5_onchip.cu): a row in shared memory over a cluster of 1..8 CTAs -----------------

inline constexpr std::int64_t kSliceCapBytes = 196608;      // 192 KB per CTA: one CTA per SM
inline constexpr std::int64_t kHalfSliceCapBytes = 98304;   // 96 KB per CTA: two CTAs per SM
inline constexpr int kMaxCluster = 8;                        // portable

// One kernel configuration per slice size in bytes; each fetches its whole next slice into
// registers ahead of time (threads x packs of 16 bytes), 5_onchip.cu lists them.
enum class SliceClass { upto16k, upto32k, upto64k, upto96k, upto192k };

struct OnchipPlan {
  int cluster = 1;           // CTAs per row
  std::int64_t slice = 0;    // elements per CTA, a multiple of 16 bytes of them
  int threads = 64;
  SliceClass kind = SliceClass::upto16k;
  bool fits = false;         // the slice fits one CTA's shared memory
};

OnchipPlan plan_onchip(std::int64_t n, int element_bytes);

// --- dispatch (6_dispatch.cu) --------------------------------------------------------------

// Rows up to this many bytes stay in the registers of one block (or of a lane group of a warp);
// longer ones take the onchip path, but rows of 2-byte values in 16-byte packs up to
// kHeldRowBytes, which a block holds as stored, two values a register (64 a thread at 512 threads),
// and up to kHeldSplitRowBytes, which a block holds so in part and in part in each thread's own
// shared-memory slots (64 values a thread more: dev::HeldSplitRow).
inline constexpr std::int64_t kRegisterRowBytes = 32768;
inline constexpr std::int64_t kHeldRowBytes = held::kRowBytes;
inline constexpr std::int64_t kHeldSplitRowBytes = held::kSplitRowBytes;
inline constexpr int kHeldValuesPerThread = held::kValuesPerThread;
inline constexpr int kHeldSplitSlotPacks = held::kSlotPacks;  // 16-byte slots a thread
inline constexpr int kMaxHeldLanes = held::kMaxLanes;  // 64 registers a thread: two blocks an SM
inline constexpr int kLaneGroupThreads = 128;  // block size when several rows share a block
inline constexpr int kMaxLanes = 1024;

// Floats per thread the register path holds: 8 packs of 4 fp32 or 4 packs of 8 bf16 (32 floats),
// 16 when packs are narrower (each of those needs its own address and predicate).
inline constexpr int max_floats_per_thread(int vec, int element_bytes) {
  return vec * element_bytes == 16 ? 32 : 16;
}

enum class DispatchPath { lane_groups, block_row, held_block, held_split, onchip };

struct DispatchPlan {
  DispatchPath path = DispatchPath::onchip;
  int vec = 1;                // elements per pack
  std::int64_t packs = 0;     // packs per row
  int lanes = 0;              // threads per row: blockDim.x (a power of two <= 32 in lane groups)
  int rows_per_block = 1;     // blockDim.y
  int packs_per_thread = 0;   // a power of two; the held split's: its held packs and its slots

  bool registers() const { return path != DispatchPath::onchip; }
  bool held() const { return path == DispatchPath::held_block || path == DispatchPath::held_split; }
  // The held split's dynamic shared memory: kHeldSplitSlotPacks slots of 16 bytes a lane.
  std::int64_t held_split_smem_bytes() const { return std::int64_t{lanes} * kHeldSplitSlotPacks * held::kPackBytes; }
};

// Whether rows of n elements take the held block (2-byte values in 16-byte packs, over 32 KB and
// up to 64 KB) or the held split (over 64 KB and up to 128 KB).
bool takes_held_block(std::int64_t n, int element_bytes, int vec);
bool takes_held_split(std::int64_t n, int element_bytes, int vec);

// vec from row_pack_width.
DispatchPlan plan_dispatch(std::int64_t n, int element_bytes, int vec);

}  // namespace nb::softmax
