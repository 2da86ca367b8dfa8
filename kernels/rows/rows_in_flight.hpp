#pragma once
// How many blocks of 512 lanes an SM the register rows of 16384 bf16/fp16 values run (LayerNorm's
// and RMSNorm's register_row, softmax's dispatch): two with the registers the kernels ask for
// (about 50-60 a thread), or three with 40 (LayerNorm's statistics in one pass, a few bytes
// spilled; RMSNorm's and softmax's rows held as stored). By Little's law an SM must keep its DRAM
// rate times the latency in flight: on an H200 (36 GB/s an SM by the datasheet) the third row in
// flight took 16384 x 16384 bf16 LayerNorm from 0.2951 to 0.2764 ms, RMSNorm from 0.2680 to 0.2628,
// softmax from 0.2698 to 0.2617; on an H100 (25 GB/s an SM) it cost 2.7-4.5%, 0.4-0.5% and 0.6-0.7%
// (docs/notes/memory-bound-round3.md, "Twenty-third" and "Twenty-fourth"). The threshold sits
// between the two.
#include <optional>

namespace nb::rows {

// The rate per SM above which the rows take three blocks an SM.
inline constexpr double kThreeBlocksDramGbpsPerSm = 30.0;

// 2 or 3 for a device streaming dram_gbps_per_sm by its datasheet, unless `setting` (the run's
// NORMBENCH_ROWS_IN_FLIGHT, harness/run/rows_in_flight_setting.hpp) says which.
int blocks_of_512_an_sm(double dram_gbps_per_sm, std::optional<int> setting);

// The same for the current device (its rate asked once) and the process's setting.
int blocks_of_512_an_sm();

// Whether a block row of `lanes` lanes launches its three-block instance: 512 lanes where
// blocks_of_512_an_sm() is 3.
inline bool launches_three_blocks(int lanes) { return lanes == 512 && blocks_of_512_an_sm() == 3; }

}  // namespace nb::rows
