#pragma once
// The `cudnn` variant of a row-norm op (rmsnorm_rows, layernorm_rows and their backwards): one
// RowNormPlan (norm_cudnn.hpp) per shape and storage type, built in prepare() and cached; a
// shape or dtype cuDNN refuses is remembered, and prepare() and supports() then give cuDNN's
// statuses as the reason. The op's own file says which of its tensors each cuDNN tensor is.
#include <functional>
#include <memory>

#include "baselines/cudnn/norm_cudnn.hpp"
#include "harness/variant.hpp"

namespace nb {

// The launch's pointers (and eps, for the forward graphs) from the op's tensors.
using RowNormBinding = std::function<RowNormArgs(const Problem&, const DeviceTensors&)>;

// The plan key of a problem of a row op: its graph over (m, n) in storage_type(p.dtype).
RowNormShape row_norm_shape_of(RowNormGraph graph, const Problem& p);

std::unique_ptr<Variant> make_row_norm_cudnn_variant(RowNormGraph graph, RowNormBinding bind);

}  // namespace nb
