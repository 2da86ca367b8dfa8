#pragma once
// How Eigen audits both BatchNorm ops' device references (harness/slices.hpp): by
// channels, each one's statistics computed over its N*H*W values alone. The slice problem has the
// sampled channels as its C.
#include <vector>

#include "harness/op_spec.hpp"

namespace nb::bn {

// per_element[t]: tensor t is shaped like x (a channel is N runs of H*W values), else it holds one
// value per channel (gamma, the statistics).
SliceFamily channel_slices(const OpSpec& op, const Problem& p, const std::vector<bool>& per_element,
                           std::vector<int> checked);

}  // namespace nb::bn
