#pragma once
// How plan_graph builds a plan when the plan cache has none: it asks the heuristics in mode A,
// then FALLBACK, for up to 32 engine configs each, and finalizes them in the heuristics' order
// until one takes. Only that one plan is kept; the configs before it are skipped (TF32 where it is
// not allowed) or refused, each written into the status with its cuDNN status and, when it took
// 0.05 s or more, the seconds its finalization spent (a runtime-compiled engine compiles there,
// and may refuse only after compiling).
#include <cudnn.h>

#include "baselines/cudnn/graph_plan.hpp"

namespace nb::cudnn_backend {

// What the search does, in the plan cache's key: another search may keep another engine.
inline constexpr const char* kPlanSearch = "heuristics A then FALLBACK, 32 configs each, first that finalizes";

PlannedGraph search_plan(cudnnHandle_t handle, const Graph& graph, bool allow_tf32);

}  // namespace nb::cudnn_backend
