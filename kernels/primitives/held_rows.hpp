#pragma once
// The geometry of a 2-byte row held as stored in one block, shared by the row norms' plan
// (kernels/rows/row_plan.hpp) and softmax's dispatch plan (kernels/softmax/launch_plan.hpp):
// bf16/fp16 values in 16-byte packs, two to a register, 64 a thread at up to 512 threads (64
// registers a thread: two blocks an SM), so one block holds a row of 64 KB; the held split keeps as
// many packs again in each thread's own shared-memory slots (dev::HeldSplitRow), 64 KB more.
#include <cstdint>

namespace nb::held {

inline constexpr int kMaxLanes = 512;
inline constexpr int kValuesPerThread = 64;
inline constexpr int kPackBytes = 16;
inline constexpr int kPacksPerThread = kValuesPerThread * 2 / kPackBytes;  // held in registers: 8
inline constexpr int kSlotPacks = kPacksPerThread;                          // in shared memory: 8
inline constexpr int kMaxSlotBytes = kMaxLanes * kSlotPacks * kPackBytes;    // a block's slots: 64 KB
inline constexpr std::int64_t kRowBytes = std::int64_t{kMaxLanes} * kValuesPerThread * 2;  // 64 KB
inline constexpr std::int64_t kSplitRowBytes = kRowBytes + kMaxSlotBytes;                  // 128 KB

}  // namespace nb::held
