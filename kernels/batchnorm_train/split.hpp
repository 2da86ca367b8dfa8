#pragma once
// The grid-level Welford passes (split.cu) that 4_welford.cu and 5_split.cu launch with
// different plans.
#include "kernels/batchnorm_common/shape.hpp"
#include "kernels/batchnorm_common/split_plan.cuh"

namespace nb::bn_train::split {

using namespace nb::bn::dev;

std::size_t workspace_bytes(const Problem& p, SplitStyle style);
// The three passes for a plan: partial statistics, finalize, y.
void launch(const bn::FwdArgs& a, const SplitPlan& p, void* workspace, cudaStream_t stream);

}  // namespace nb::bn_train::split
