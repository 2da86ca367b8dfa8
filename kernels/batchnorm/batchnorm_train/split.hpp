#pragma once
// The grid-level Welford passes (split.cu) that 4_welford.cu and 5_split.cu launch with
// different plans.
#include "kernels/batchnorm/args.hpp"
#include "kernels/batchnorm/shape.hpp"
#include "kernels/batchnorm/split_plan.cuh"

namespace nb::batchnorm_train::split {

using namespace nb::bn::dev;

// Room for the partials of either plan the problem can get (aligned tensors or not).
std::size_t workspace_bytes(const Problem& p, SplitStyle style);

// The plan for these tensors: 16-byte loads where the shape and x and y allow them.
SplitPlan plan_for(const bn::FwdArgs& a, SplitStyle style);

// How tightly the three passes follow one another (split_tail sets all three; split and welford
// none).
struct PassChain {
  bool tail_first = false;          // 2d, statistics in run order: the y pass from the end of x down,
                                    // reading first what the statistics pass left in L2 (evict-first)
  bool block_finalize = false;      // a 256-thread block per channel of >= 256 partials, not a warp
  bool dependent_launches = false;  // finalize and y pass as programmatic dependents (sm_90+)
};

// The three passes for a plan: partial statistics, finalize, y.
void launch(const bn::FwdArgs& a, const SplitPlan& p, void* workspace, cudaStream_t stream,
            const PassChain& chain = {});

}  // namespace nb::batchnorm_train::split
