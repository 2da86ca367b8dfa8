#pragma once
// How 3_fused.cu lays the problem over CTAs. A row is cut into packs (16 bytes of the storage type
// when N and the pointers allow, else one element) and split over a thread-block cluster of
// `parts` CTAs when one CTA's share would pass kElementsPerBlock. Each CTA holds its share of a
// row in registers (at most kMaxElementsPerThread per thread) with `rows_per_block` rows in
// flight at once, one per row slot of `lanes` threads. Rows too long for the registers of a
// cluster of 8 (N > 32768) are streamed twice (the second pass from L2), the column sums in
// shared memory, over a cluster of up to 16. The rows are dealt into bands (every bands-th row a
// band), one partial row of column sums each.
// Host code, so the unit tests can check that every row length gets a plan that covers it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/rows/dealt_bands.hpp"

namespace nb::rows_bwd {

// Register mode: per thread g and xhat of at most 8 elements (one 16-byte pack of bf16 or fp16, two
// of fp32) and their one or two column sums, within 64 registers, so that 2048 threads share an SM
// (two CTAs of up to 512 lanes, four of kBlockThreads) and one's loads overlap another's
// reductions; a part of up to 1024 lanes (one CTA an SM) keeps its row in registers (8192 bf16
// elements a CTA, 65536 a cluster of 8, 131072 one of 16) where the streamed mode would read it twice.
inline constexpr int kMaxElementsPerThread = 8;
// A thread's raw words of one tensor for one row: four registers a 16-byte pack, one an element.
// Where they pass kMaxRawRegisters (fp32's two packs a thread, five or more single elements), the
// register kernel keeps its column sums in shared memory instead of registers: held in registers
// there, LayerNorm's spilled (88 bytes) and fp32 32768 x 8192 took 1.311 ms against 1.124 ms in
// shared memory (H100, docs/notes/memory-bound-round3.md).
inline constexpr int raw_registers(int packs_per_thread, int vec) { return packs_per_thread * (vec > 1 ? 4 : 1); }
inline constexpr int kMaxRawRegisters = 4;
inline constexpr bool shared_column_sums(int packs_per_thread, int vec) {
  return raw_registers(packs_per_thread, vec) > kMaxRawRegisters;
}
inline constexpr std::int64_t kElementsPerBlock = 4096;  // a larger share of a row splits over a cluster
inline constexpr int kPortableClusterSize = 8;           // the parts a row takes first
inline constexpr int kMaxRegisterParts = 16;             // a non-portable cluster, for rows past 8 x 1024 lanes
inline constexpr int kMaxLanes = 1024;                   // threads per row slot in register mode
inline constexpr int kBlockThreads = 256;                // shorter slots share a CTA up to this many threads
// Streamed mode: 1024 threads per part, the part's column sums in dynamic shared memory.
inline constexpr int kStreamLanes = 1024;
inline constexpr int kMaxStreamParts = 16;  // a non-portable cluster (Hopper allows 16)
inline constexpr std::size_t kStreamSharedBytes = 192 * 1024;
// TMA-fed mode (5_fused_tma.cu): warps of kTmaPacksPerThread 16-byte packs a thread, at most
// kTmaMaxConsumers threads a part (a part of up to 16 KB of x and 16 KB of dy), a cluster of up to
// kMaxRegisterParts parts a row; thread 0 also issues the copies (no producer warp: a thread may
// then take 128 registers, not 96, and the H200 measured 3.6-8% faster at LayerNorm's 4096-131072
// and 26% at 262144, "Thirty-fifth" in docs/notes/memory-bound-round3.md); kTmaStages stages of a
// part's x and dy, the dynamic memory aligned on kTmaStageAlign bytes. Two packs a thread
// (16 warps an SM at the longest parts) measured ahead of four (8 warps) at nearly every row length
// on the H100 and at rows of 1024 and 32768-131072 on the H200 ("Seventeenth").
inline constexpr int kTmaPacksPerThread = 2;
inline constexpr int kTmaMaxConsumers = 512;
inline constexpr int kTmaStages = 3;
// fp32's rows over the widest clusters (kMaxRegisterParts) go one ahead (5_fused_tma.cu): a CTA
// sends row i + 1's sums to its peers before it takes row i's totals, so the exchange's round trip,
// longest over sixteen CTAs, runs under a row's sums; the consumers then hold two rows' stages, and
// the ring has one more. Since every warp pushes its own sums in turn (WarpClusterExchange),
// LayerNorm's bf16 and fp16 rows over 16 CTAs are 4.4-6.1% faster in turn and its fp32 rows
// 0.9-1.4% slower (H200, "Thirty-sixth" in docs/notes/memory-bound-round3.md): an fp32 part holds
// half the elements of a 2-byte one, so the round trip weighs more against its row's work.
// Narrower clusters keep the in-turn loop in every type (one ahead was 3-25% slower over 2-8,
// "Thirty-third").
inline constexpr int kTmaAheadStages = 4;
// RMSNorm's rows that two packs a thread would spread over kMaxRegisterParts parts or more (past
// 65536 bf16, 32768 fp32) take four packs a thread in the one-ahead loop, whose pack-at-a-time
// reads leave room for them: 95 registers and no spill (bf16). Half the cluster: 131072 bf16 over 8
// CTAs measured 4% faster than over 16, and 262144 gets a plan. LayerNorm's rows take four packs
// only where two do not reach (past 131072 bf16, 65536 fp32), with w in shared memory beside the
// stages: its two column sums spilled 312 bytes with w held, 52 without. Three stages of up to 32
// KB of x and 32 KB of dy.
inline constexpr int kTmaWidePacksPerThread = 4;
inline constexpr int kTmaWideStages = 3;
inline constexpr std::size_t kMaxSharedBytesPerBlock = 227 * 1024;  // sm_90's opt-in most a block
// What the TMA-fed kernel's static shared memory may take beside the stages (its barriers, the
// warps' and the cluster's sums: 832 bytes at most one ahead; the kernel asserts the bound).
inline constexpr std::size_t kTmaStaticBytes = 1024;
// The in-turn loop's stages (two packs a thread) leave room for the exchange's slot of every warp
// of every rank of the widest cluster (4.4 KB in all).
inline constexpr std::size_t kTmaInTurnStaticBytes = 5120;
inline constexpr unsigned kTmaStageAlign = 128;
// The TMA-fed mode's dynamic shared memory: stages of a part's x and dy. Every plan's stages, at its
// widest parts, fit a block beside the statics, whose bounds are whole kTmaStageAlign-byte blocks:
// the padding that aligns the dynamic memory after them fits in the bound. The stages are aligned by
// the kernel's declaration, but for RMSNorm's in-turn rows of one or two parts that fill a warp's
// two packs a lane (1 KB a part or more), which start them at run time (align_shared_up) from
// kTmaStageAlign bytes more: the declared form measured 8-10% faster over clusters of 4-16 and 3% at
// LayerNorm's rows of 8192, the run-time one 2-5% faster at RMSNorm's 512-16384 (bf16, fp16 and
// fp32) and 10% slower at its bf16 rows of 256, half a warp's packs (H200;
// docs/notes/memory-bound-round3.md, "Thirty-eighth").
static_assert(kTmaStaticBytes % kTmaStageAlign == 0 && kTmaInTurnStaticBytes % kTmaStageAlign == 0);
constexpr std::size_t tma_stages_bytes(int stages, std::int64_t packs_per_part) {
  return std::size_t(stages) * 2 * std::size_t(packs_per_part) * 16;
}
// Whether a plan keeps w in shared memory after the stages: LayerNorm (two column sums) at four
// packs a thread. The plan pays for it and the kernel lays it out by this one rule.
constexpr bool tma_w_in_shared(int column_sums, int packs_per_thread) {
  return column_sums == 2 && packs_per_thread == kTmaWidePacksPerThread;
}
// Those bytes: a part's w.
constexpr std::size_t tma_shared_w_bytes(std::int64_t packs_per_part) { return std::size_t(packs_per_part) * 16; }
static_assert(tma_stages_bytes(kTmaStages, std::int64_t(kTmaMaxConsumers) * kTmaPacksPerThread) + kTmaStageAlign +
                  kTmaInTurnStaticBytes <= kMaxSharedBytesPerBlock);  // in turn, the stages aligned at run time
static_assert(tma_stages_bytes(kTmaAheadStages, std::int64_t(kTmaMaxConsumers) * kTmaPacksPerThread) +
                  kTmaStaticBytes <= kMaxSharedBytesPerBlock);
static_assert(tma_stages_bytes(kTmaWideStages, std::int64_t(kTmaMaxConsumers) * kTmaWidePacksPerThread) +
                  tma_shared_w_bytes(std::int64_t(kTmaMaxConsumers) * kTmaWidePacksPerThread) + kTmaStaticBytes <=
              kMaxSharedBytesPerBlock);
// Bands: each row slot sees at least kMinBandRounds rows of its band; never more than kMaxBands.
inline constexpr std::int64_t kMinBandRounds = 4;
inline constexpr std::int64_t kMaxBands = 2048;

struct FusedPlan {
  int vec = 1;                     // elements per pack: 16 bytes' worth (4 fp32, 8 bf16/fp16) or 1
  std::int64_t packs = 0;          // packs per row
  int parts = 1;                   // CTAs per row; a thread-block cluster when > 1
  std::int64_t packs_per_part = 0;
  int lanes = 1;                   // threads per row slot: blockDim.x (a power of two <= 32, or a multiple of 32)
  int rows_per_block = 1;          // row slots: blockDim.y
  int packs_per_thread = 0;        // a power of two; 0: streamed
  std::size_t shared_bytes = 0;    // dynamic shared memory: the column sums (streamed: the part's; register
                                   // mode: each thread's, where shared_column_sums holds; else 0), or
                                   // the TMA-fed mode's stages
  int stages = 0;                  // TMA-fed mode: the ring's stages
  bool one_ahead = false;          // TMA-fed mode: rows over a cluster one ahead (5_fused_tma.cu)
  bool stages_aligned_at_run_time = false;  // TMA-fed mode: the stages from the dynamic memory's first
                                            // kTmaStageAlign-byte boundary (kTmaStageAlign bytes more)
  std::string unsupported;         // why no plan exists for this row length; "" when one does

  bool streamed() const { return packs_per_thread == 0; }
  std::int64_t part_elements() const { return packs_per_part * vec; }
  int threads() const { return lanes * rows_per_block; }
};

// column_sums: 1 (dw) or 2 (dw and db).
FusedPlan plan_fused(std::int64_t n, int vec, int column_sums);
// The TMA-fed mode's plan: rows of 16-byte packs (vec > 1) up to kMaxRegisterParts parts; its lanes
// are the CTA's threads, every one a reader, one row slot a CTA. column_sums: 1 (RMSNorm, which
// takes kTmaWidePacksPerThread where two packs would need 16 parts) or 2 (LayerNorm, which takes it
// only where two packs do not reach).
FusedPlan plan_fused_tma(std::int64_t n, int vec, int column_sums);

using rows::band_row;  // the bands' rows, dealt (kernels/rows/dealt_bands.hpp)
using rows::band_rows;

// Bands for `resident` clusters that run at once: as many as there are, as long as each row slot
// gets kMinBandRounds rows, at least 1 and at most kMaxBands.
std::int64_t band_count(std::int64_t m, const FusedPlan& plan, std::int64_t resident);
// The most bands band_count gives on any device: what the workspace holds.
std::int64_t max_band_count(std::int64_t m, const FusedPlan& plan);

}  // namespace nb::rows_bwd
