#include "baselines/cudnn/matmul_fusion_cudnn.hpp"

#include <cstdint>
#include <exception>
#include <memory>

#include "harness/cuda_check.hpp"
#include "baselines/cudnn/graph_plan.hpp"
#include "baselines/library_alignment.hpp"
#include "harness/library_check.hpp"

namespace nb {
namespace {

using namespace cudnn_backend;

// Tensors the caller passes (variant pack) and virtual ones that live only inside the plan.
enum Uid : int64_t {
  kUidX = 1, kUidW, kUidBias, kUidScale, kUidH, kUidSum, kUidSumSq,
  kUidG = 101,  // x W^T
  kUidGb,       // x W^T + b
  kUidHH,       // h * h
};

Graph build_graph(cudnnHandle_t handle, const MatmulFusionShape& s, MatmulFusionLevel level) {
  const int64_t m = s.m, n = s.n, k = s.k;
  Graph g;
  auto keep = [&g](DescPtr d) -> const Descriptor& { return g.keep(std::move(d)); };
  auto add_op = [&g](DescPtr op) { g.add_op(std::move(op)); };
  const bool epilogue = matmul_fusion_has_epilogue(level);
  const cudnnDataType_t stored = s.bf16_operands ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;  // x, W, b
  const Descriptor& x = keep(tensor(kUidX, {1, m, k}, {m * k, k, 1}, false, stored));
  const Descriptor& wt = keep(tensor(kUidW, {1, k, n}, {n * k, 1, k}, false, stored));  // W (N, K) read as W^T
  const Descriptor& h = keep(tensor(kUidH, {1, m, n}, {m * n, n, 1}, false));
  if (!epilogue) {
    add_op(matmul_op(x, wt, h));
  } else {
    const Descriptor& gm = keep(tensor(kUidG, {1, m, n}, {m * n, n, 1}, true));
    const Descriptor& gb = keep(tensor(kUidGb, {1, m, n}, {m * n, n, 1}, true));
    const Descriptor& bias = keep(tensor(kUidBias, {1, 1, n}, {n, n, 1}, false, stored));
    const Descriptor& scale = keep(tensor(kUidScale, {1, 1, n}, {n, n, 1}, false));
    add_op(matmul_op(x, wt, gm));
    add_op(pointwise_op(CUDNN_POINTWISE_ADD, gm, bias, gb));
    add_op(pointwise_op(CUDNN_POINTWISE_MUL, gb, scale, h));
  }
  if (matmul_fusion_has_sum(level)) {
    const Descriptor& sum = keep(tensor(kUidSum, {1, 1, n}, {n, n, 1}, false));
    add_op(column_sum_op(h, sum));
  }
  if (matmul_fusion_has_sumsq(level)) {
    const Descriptor& hh = keep(tensor(kUidHH, {1, m, n}, {m * n, n, 1}, true));
    const Descriptor& sumsq = keep(tensor(kUidSumSq, {1, 1, n}, {n, n, 1}, false));
    add_op(pointwise_op(CUDNN_POINTWISE_MUL, h, h, hh));
    add_op(column_sum_op(hh, sumsq));
  }
  g.finalize(handle);
  return g;
}

std::string describe(const MatmulFusionShape& s) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) + " " +
         operand_precision(s.bf16_operands, s.allow_tf32);
}

std::string label_of(const MatmulFusionShape& shape, MatmulFusionLevel level) {
  return matmul_fusion_level_name(level) + " " + describe(shape);
}

void check_shape(const MatmulFusionShape& s) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0)
    throw UsageError("matmul fusion: m, n and k must be positive (got " + std::to_string(s.m) + ", " +
                     std::to_string(s.n) + ", " + std::to_string(s.k) + ")");
}

}  // namespace

std::string matmul_fusion_level_name(MatmulFusionLevel level) {
  switch (level) {
    case MatmulFusionLevel::bias_scale_sum_sumsq: return "matmul+bias+scale+sum+sumsq";
    case MatmulFusionLevel::bias_scale_sum: return "matmul+bias+scale+sum";
    case MatmulFusionLevel::bias_scale: return "matmul+bias+scale";
    case MatmulFusionLevel::matmul_only: return "matmul";
  }
  return "?";
}

bool matmul_fusion_has_epilogue(MatmulFusionLevel level) { return level != MatmulFusionLevel::matmul_only; }
bool matmul_fusion_has_sum(MatmulFusionLevel level) {
  return level == MatmulFusionLevel::bias_scale_sum_sumsq || level == MatmulFusionLevel::bias_scale_sum;
}
bool matmul_fusion_has_sumsq(MatmulFusionLevel level) { return level == MatmulFusionLevel::bias_scale_sum_sumsq; }

MatmulFusionProbe probe_matmul_fusion(cudnnHandle_t handle, const MatmulFusionShape& shape) {
  check_shape(shape);
  MatmulFusionProbe probe;
  for (MatmulFusionLevel level : kMatmulFusionLadder) {
    std::string status;
    try {
      PlannedGraph b = plan_graph(handle, [&] { return build_graph(handle, shape, level); }, shape.tensor_cores(),
                                  label_of(shape, level));
      status = std::move(b.status);
      if (b.plan && !probe.best) probe.best = level;
    } catch (const std::exception& e) {  // a descriptor could not even be created
      status = "error: " + brief(e.what());
    }
    probe.statuses.emplace_back(level, std::move(status));
  }
  return probe;
}

MatmulBiasScaleStats::MatmulBiasScaleStats(cudnnHandle_t handle, const MatmulFusionShape& shape,
                                           const PlanCacheUse& cache)
    : handle_(handle), shape_(shape) {
  check_shape(shape);
  std::vector<MatmulFusionLevel> levels;  // the bare matmul is the probe's control, never kept
  std::vector<GraphChoice> choices;
  for (MatmulFusionLevel level : kMatmulFusionLadder)
    if (matmul_fusion_has_epilogue(level)) {
      levels.push_back(level);
      choices.push_back({[&, level] { return build_graph(handle, shape, level); }, label_of(shape, level)});
    }
  PlannedChoice chosen = plan_first_of(handle, choices, shape.tensor_cores(), cache);
  for (const auto& [choice, status] : chosen.statuses) statuses_.emplace_back(levels[choice], status);
  if (chosen.planned.plan) {
    level_ = levels[chosen.index];
    workspace_ = chosen.planned.workspace;
    status_ = chosen.planned.status;
    plan_ = chosen.planned.plan->release();
    return;
  }
  std::string msg = "cuDNN finalizes no matmul+bias+scale plan for " + describe(shape) + ":";
  for (const auto& [level, status] : statuses_) msg += "\n  " + matmul_fusion_level_name(level) + ": " + status;
  throw Unsupported(msg);
}

MatmulBiasScaleStats::~MatmulBiasScaleStats() {
  if (plan_) cudnnBackendDestroyDescriptor(plan_);
}

void MatmulBiasScaleStats::run(cudaStream_t stream, const void* x, const void* w, const void* bias,
                               const float* scale, float* h, float* col_sum, float* col_sumsq,
                               void* workspace) const {
  if (has_sum() && !col_sum) throw UsageError("MatmulBiasScaleStats::run: this plan writes col_sum; it is null");
  if (has_sumsq() && !col_sumsq)
    throw UsageError("MatmulBiasScaleStats::run: this plan writes col_sumsq; it is null");
  if (workspace_ > 0 && !workspace) throw UsageError("MatmulBiasScaleStats::run: the plan needs a workspace");
  require_library_alignment("cuDNN's matmul fusion", {{"x", x}, {"W", w}, {"bias", bias}, {"scale", scale}, {"h", h},
                                                     {"column sums", col_sum}, {"column sums of squares", col_sumsq}});
  NB_CUDNN_CHECK(cudnnSetStream(handle_, stream));
  std::vector<int64_t> uids = {kUidX, kUidW, kUidBias, kUidScale, kUidH};
  std::vector<void*> ptrs = {const_cast<void*>(x), const_cast<void*>(w), const_cast<void*>(bias),
                             const_cast<float*>(scale), h};
  const std::size_t stat_bytes = std::size_t(shape_.n) * sizeof(float);
  // The engine may accumulate the column sums across CTAs (atomics): start them at zero.
  if (has_sum()) {
    NB_CUDA_CHECK(cudaMemsetAsync(col_sum, 0, stat_bytes, stream));
    uids.push_back(kUidSum);
    ptrs.push_back(col_sum);
  }
  if (has_sumsq()) {
    NB_CUDA_CHECK(cudaMemsetAsync(col_sumsq, 0, stat_bytes, stream));
    uids.push_back(kUidSumSq);
    ptrs.push_back(col_sumsq);
  }
  execute_plan(handle_, plan_, uids, ptrs, workspace);
}

}  // namespace nb
