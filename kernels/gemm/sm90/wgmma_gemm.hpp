#pragma once
// The Hopper GEMM's host face (the kernel is wgmma_gemm.cuh): whether it can run a GEMM here,
// and its launch with the store epilogue, for the GEMM tests and gemm_configs.
#include <cuda_runtime.h>

#include <string>

#include "harness/host_device.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/tile_order.hpp"

namespace nb::gemm {
struct StoreEpilogue;
}

namespace nb::gemm::sm90 {

// The output tile one CTA computes (the kernel's WgmmaTile), and the tiles of C along M and N:
// the grid's size, and the count of per-tile partials an epilogue indexes by tile_m or tile_n.
inline constexpr int kWgmmaTileM = 128, kWgmmaTileN = 256;
NB_HD constexpr int wgmma_tiles_m(int m) { return (m + kWgmmaTileM - 1) / kWgmmaTileM; }
NB_HD constexpr int wgmma_tiles_n(int n) { return (n + kWgmmaTileN - 1) / kWgmmaTileN; }
// The most M tiles of the persistent grid's team launch (wgmma_persistent.cuh), which gives a team
// of CTAs every M tile of a column strip in the same turn: M <= 2048, where that is the order the
// grouped one gives anyway (groups of 16 M tiles). Beyond, each turn would stream all of A from
// DRAM (the launch order of docs/notes/hopper-gemm.md, version 2).
inline constexpr int kMaxTeamTilesM = 16;

// Empty when the current device runs the Hopper GEMM (an sm_90 GPU); else why not. It asks the
// driver: once per problem (a variant's supports()), not at every launch.
std::string wgmma_device_refusal();

// Empty when the Hopper GEMM can compute an M x N x K product of elements of `element_bytes`
// (4: fp32 read as tf32, 2: bf16); else why not: an empty shape, rows of K not a multiple of 16
// bytes (TMA's stride rule: K % 4 in fp32, K % 8 in bf16), more tiles than a 1-D grid holds.
std::string wgmma_shape_refusal(int m, int n, int k, int element_bytes);
// The shape's refusal, or an operand off a 16-byte boundary (TMA's address rule): cheap, no
// driver call, so the launches check it.
std::string wgmma_operands_refusal(const Operands& op);
std::string wgmma_operands_refusal(const Bf16Operands& op);
// The device's refusal, then the operands': all of them, for a caller about to time or test.
std::string wgmma_gemm_refusal(const Operands& op);
std::string wgmma_gemm_refusal(const Bf16Operands& op);

// When a consumer gives a stage's buffers back to the producer: after waiting for its MMAs
// (none in flight while the next stage waits), or once the next stage's MMAs are issued (one
// group in flight: the tensor cores never wait for the issuing warps).
enum class MmaOverlap { none, one_group };

// How the grid covers the tiles: a CTA per tile, which stages its tile in shared memory for the
// epilogue (tile_view.cuh), or one CTA per SM walking them, its epilogue fed from the
// accumulators in registers (fragment_tile.cuh) while the next tile's loads run: both consumer
// warpgroups on each 128 x 256 tile (persistent), or each on its own 64 x 256 tiles in turn, one's
// epilogue under the other's MMAs (pingpong, wgmma_pingpong.cuh), also in clusters of two CTAs
// that multicast B to each other (pingpong_pair).
enum class WgmmaGrid { cta_per_tile, persistent, pingpong, pingpong_pair };

// C = A B^T through the store epilogue, asynchronous on `stream`, in tf32 (fp32 operands) or
// bf16; throws std::invalid_argument with the operands' refusal when there is one (the caller
// has asked wgmma_device_refusal). Instantiated for both overlaps and both tile orders with a CTA
// per tile, and for both overlaps in the grouped order persistent and ping-pong (both forms).
template <MmaOverlap kOverlap, TileOrder kOrder, WgmmaGrid kGrid = WgmmaGrid::cta_per_tile>
void launch_wgmma_gemm_store(const Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream);
template <MmaOverlap kOverlap, TileOrder kOrder, WgmmaGrid kGrid = WgmmaGrid::cta_per_tile>
void launch_wgmma_gemm_store(const Bf16Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream);

}  // namespace nb::gemm::sm90
