#pragma once
// The .npy bridge for kernels that live elsewhere (PyTorch extensions): `dump` writes one
// trial's inputs and float64 reference, `check` judges outputs computed elsewhere with the same
// tolerance policy, error measures and NaN placement checks as a validated launch. No timing.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "harness/registry.hpp"

namespace nb {

struct NpyTrial {
  std::string problem;  // problem id
  std::string distribution = "uniform01";
  std::uint64_t seed = 1;
};

// DIR/<tensor>.npy (float32) for each input and inout tensor, DIR/<tensor>.reference.npy
// (float64) for each output and inout tensor, and DIR/manifest.json describing them. The set is
// written into a folder beside DIR that then replaces DIR (replace_folder): a reader sees the old
// complete set or the new one. DIR must be new, empty or an earlier dump (manifest.json and .npy
// files only): anything else in it is refused, never removed.
int dump_command(const Registry& registry, const NpyTrial& trial, const std::string& dir, std::ostream& out);

// Reads OUTPUTS/<tensor>.npy (float32 or float64) for each output and inout tensor; exit 0 when
// all pass, 1 when any fails, 2 for a missing, unreadable, malformed or not regular file (a FIFO
// is named, never opened).
int check_command(const Registry& registry, const NpyTrial& trial, const std::string& outputs_dir, std::ostream& out);

}  // namespace nb
