#include "kernels/softmax/launch_plan.hpp"

#include "kernels/primitives/host_math.hpp"

namespace nb::softmax {
namespace {

// Threads for a CTA that owns `bytes` of a row: about 64 bytes each (16 floats), 64..max_threads.
int threads_for_bytes(std::int64_t bytes, int max_threads) {
  const std::int64_t t = ceil_div(bytes / 64, 32) * 32;
  return static_cast<int>(t < 64 ? 64 : t > max_threads ? max_threads : t);
}

}  // namespace

int row_pack_width(std::int64_t n, int element_bytes, std::uintptr_t x, std::uintptr_t y) {
  int vec = 16 / element_bytes;
  while (vec > 1) {
    const std::uintptr_t bytes = static_cast<std::uintptr_t>(vec) * static_cast<std::uintptr_t>(element_bytes);
    if (n % vec == 0 && x % bytes == 0 && y % bytes == 0) break;
    vec /= 2;
  }
  return vec;
}

// The smallest cluster whose slices fit two CTAs per SM (96 KB); rows over 8 x 96 KB take 8 CTAs
// of up to 192 KB, one per SM. The slice is a whole number of 16-byte packs, so every CTA's slice
// starts on 16 bytes when the row does.
OnchipPlan plan_onchip(std::int64_t n, int element_bytes) {
  OnchipPlan cp;
  const std::int64_t pack = 16 / element_bytes;
  while (cp.cluster < kMaxCluster && ceil_div(n, cp.cluster) * element_bytes > kHalfSliceCapBytes) cp.cluster *= 2;
  cp.slice = ceil_div(ceil_div(n, cp.cluster), pack) * pack;
  const std::int64_t bytes = cp.slice * element_bytes;
  cp.fits = bytes <= kSliceCapBytes;
  if (bytes > kHalfSliceCapBytes) {
    cp.threads = 512, cp.kind = SliceClass::upto192k;
  } else if (bytes > 65536) {
    cp.threads = 256, cp.kind = SliceClass::upto96k;
  } else if (bytes > 32768) {
    cp.threads = threads_for_bytes(bytes, 512), cp.kind = SliceClass::upto64k;
  } else if (bytes > 16384) {
    cp.threads = 256, cp.kind = SliceClass::upto32k;
  } else {
    cp.threads = threads_for_bytes(bytes, 256), cp.kind = SliceClass::upto16k;  // at most 4 packs per thread
  }
  return cp;
}

bool takes_held_block(std::int64_t n, int element_bytes, int vec) {
  const std::int64_t bytes = n * element_bytes;
  return element_bytes == 2 && vec * element_bytes == 16 && bytes > kRegisterRowBytes && bytes <= kHeldRowBytes;
}

bool takes_held_split(std::int64_t n, int element_bytes, int vec) {
  const std::int64_t bytes = n * element_bytes;
  return element_bytes == 2 && vec * element_bytes == 16 && bytes > kHeldRowBytes && bytes <= kHeldSplitRowBytes;
}

// Short rows: a power-of-two lane group per row, kLaneGroupThreads / lanes rows per block, shuffles
// only. Longer rows: a block per row (lanes a multiple of 32), a shared-memory reduction. Both hold
// the row in registers: a power of two of packs per thread within max_floats_per_thread. Rows of
// 32-64 KB of 2-byte packs: a block of up to 512 lanes holding 64 values each as stored; of 64-128
// KB: such a block with as many packs again in each thread's slots.
DispatchPlan plan_dispatch(std::int64_t n, int element_bytes, int vec) {
  DispatchPlan plan;
  plan.vec = vec;
  plan.packs = ceil_div(n, vec);
  const bool held_split = takes_held_split(n, element_bytes, vec);
  if (held_split || takes_held_block(n, element_bytes, vec)) {
    plan.path = held_split ? DispatchPath::held_split : DispatchPath::held_block;
    plan.packs_per_thread = kHeldValuesPerThread / vec + (held_split ? kHeldSplitSlotPacks : 0);
    plan.lanes = static_cast<int>(ceil_div(ceil_div(plan.packs, plan.packs_per_thread), 32) * 32);
    return plan;
  }
  if (n * element_bytes > kRegisterRowBytes) return plan;  // onchip
  const int max_packs = max_floats_per_thread(vec, element_bytes) / vec;
  const std::int64_t lanes_needed = ceil_div(plan.packs, max_packs);
  if (lanes_needed <= 32) {
    plan.path = DispatchPath::lane_groups;
    plan.lanes = pow2_at_least(lanes_needed);
    plan.rows_per_block = kLaneGroupThreads / plan.lanes;
  } else {
    plan.path = DispatchPath::block_row;
    plan.lanes = static_cast<int>(ceil_div(lanes_needed, 32) * 32);
  }
  plan.packs_per_thread = pow2_at_least(ceil_div(plan.packs, plan.lanes));
  return plan;
}

}  // namespace nb::softmax
