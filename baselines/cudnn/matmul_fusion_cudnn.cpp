#include "baselines/cudnn/matmul_fusion_cudnn.hpp"

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <sstream>

#include "harness/cuda_check.hpp"
#include "baselines/cudnn/backend_descriptor.hpp"
#include "harness/library_check.hpp"

namespace nb {
namespace {

using cudnn_backend::Descriptor;

using DescPtr = std::unique_ptr<Descriptor>;

// Tensors the caller passes (variant pack) and virtual ones that live only inside the plan.
enum Uid : int64_t {
  kUidX = 1, kUidW, kUidBias, kUidScale, kUidH, kUidSum, kUidSumSq,
  kUidG = 101,  // x W^T
  kUidGb,       // x W^T + b
  kUidHH,       // h * h
};

constexpr int kMaxConfigs = 32;  // engine configs asked of each heuristics mode

DescPtr tensor(int64_t uid, std::array<int64_t, 3> dims, std::array<int64_t, 3> strides, bool is_virtual) {
  auto t = std::make_unique<Descriptor>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  const int64_t alignment = 16;
  t->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &dtype)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), 3)
      .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), 3)
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
  if (is_virtual) t->set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &is_virtual);
  t->finalize();
  return t;
}

DescPtr matmul_op(const Descriptor& a, const Descriptor& b, const Descriptor& c) {
  Descriptor desc(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  // FLOAT is the only fp32 compute type the matmul descriptor has; whether an engine runs it
  // as TF32 is in the engine's numerical notes (see uses_tf32 below).
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute);
  desc.finalize();
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  op->set_desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
      .set_desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
      .set_desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c)
      .set_desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc);
  op->finalize();
  return op;
}

DescPtr pointwise_op(cudnnPointwiseMode_t mode, const Descriptor& x, const Descriptor& b, const Descriptor& y) {
  Descriptor desc(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  const cudnnDataType_t prec = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode)
      .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &prec);
  desc.finalize();
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  op->set_desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc)
      .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x)
      .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b)
      .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
  op->finalize();
  return op;
}

// Sum of x (1, M, N) over M into y (1, 1, N): the reduced dimensions are those where y is 1.
DescPtr column_sum_op(const Descriptor& x, const Descriptor& y) {
  Descriptor desc(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  const cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &mode)
      .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute);
  desc.finalize();
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  op->set_desc(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x)
      .set_desc(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y)
      .set_desc(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc);
  op->finalize();
  return op;
}

// The operation graph of one rung; the tensors and operations stay alive with it.
struct Graph {
  std::vector<DescPtr> parts;
  DescPtr graph;
};

Graph build_graph(cudnnHandle_t handle, const MatmulFusionShape& s, MatmulFusionLevel level) {
  const int64_t m = s.m, n = s.n, k = s.k;
  Graph g;
  auto keep = [&g](DescPtr d) -> const Descriptor& {
    g.parts.push_back(std::move(d));
    return *g.parts.back();
  };
  const bool epilogue = matmul_fusion_has_epilogue(level);
  const Descriptor& x = keep(tensor(kUidX, {1, m, k}, {m * k, k, 1}, false));
  const Descriptor& wt = keep(tensor(kUidW, {1, k, n}, {n * k, 1, k}, false));  // W (N, K) row-major read as W^T
  const Descriptor& h = keep(tensor(kUidH, {1, m, n}, {m * n, n, 1}, false));
  std::vector<cudnnBackendDescriptor_t> ops;
  auto add_op = [&](DescPtr op) { ops.push_back(keep(std::move(op)).get()); };
  if (!epilogue) {
    add_op(matmul_op(x, wt, h));
  } else {
    const Descriptor& gm = keep(tensor(kUidG, {1, m, n}, {m * n, n, 1}, true));
    const Descriptor& gb = keep(tensor(kUidGb, {1, m, n}, {m * n, n, 1}, true));
    const Descriptor& bias = keep(tensor(kUidBias, {1, 1, n}, {n, n, 1}, false));
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
  g.graph = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  g.graph->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle)
      .set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.data(), int64_t(ops.size()));
  g.graph->finalize();
  return g;
}

std::string numerical_note_name(cudnnBackendNumericalNote_t note) {
  switch (note) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE: return "tensor_core";
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS: return "down_convert_inputs";
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION: return "reduced_precision_reduction";
    case CUDNN_NUMERICAL_NOTE_FFT: return "fft";
    case CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC: return "nondeterministic";
    case CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP: return "strict_nan_prop";
    default: return "numerical_note_" + std::to_string(int(note));
  }
}

std::string behavior_note_name(cudnnBackendBehaviorNote_t note) {
  switch (note) {
    case CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION: return "runtime_compilation";
    case CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API: return "cuda_graph_native";
    default: return "behavior_note_" + std::to_string(int(note));
  }
}

// What an engine config says about itself: its engine's global index and notes.
struct EngineInfo {
  int64_t index = -1;
  std::vector<cudnnBackendNumericalNote_t> numerical;
  std::vector<cudnnBackendBehaviorNote_t> behavior;

  // TF32 on fp32 data: cuDNN marks such engines TENSOR_CORE (and DOWN_CONVERT_INPUTS).
  bool uses_tf32() const {
    for (auto note : numerical)
      if (note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return true;
    return false;
  }
  std::string notes() const {
    std::string s;
    for (auto note : numerical) s += (s.empty() ? "" : ",") + numerical_note_name(note);
    for (auto note : behavior) s += (s.empty() ? "" : ",") + behavior_note_name(note);
    return s.empty() ? "none" : s;
  }
};

EngineInfo engine_info(const Descriptor& config) {
  EngineInfo info;
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t raw = engine.get();
  int64_t count = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw));
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count,
                                              &info.index));
  std::array<cudnnBackendNumericalNote_t, CUDNN_NUMERICAL_NOTE_TYPE_COUNT> numerical{};
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                              int64_t(numerical.size()), &count, numerical.data()));
  info.numerical.assign(numerical.begin(), numerical.begin() + count);
  std::array<cudnnBackendBehaviorNote_t, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT> behavior{};
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                              int64_t(behavior.size()), &count, behavior.data()));
  info.behavior.assign(behavior.begin(), behavior.begin() + count);
  return info;
}

// "CUDNN_STATUS_NOT_SUPPORTED_..." out of an nb::Unsupported message, for the compact list.
std::string status_code(const std::string& what) {
  const auto p = what.find("CUDNN_STATUS_");
  if (p == std::string::npos) return "error";
  const auto e = what.find_first_of(" :)", p);
  return what.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

// The message without " from <call> (<file>:<line>)": the status and cuDNN's own detail.
std::string brief(const std::string& what) {
  const auto from = what.find(" from ");
  const auto src = what.find(".cpp:", from == std::string::npos ? 0 : from);
  const auto close = src == std::string::npos ? std::string::npos : what.find(')', src);
  if (from == std::string::npos || close == std::string::npos) return what;
  return what.substr(0, from) + what.substr(close + 1);
}

// Distinct detailed messages, in first-seen order.
struct Details {
  std::vector<std::string> items;
  void add(const std::string& what) {
    const std::string b = brief(what);
    for (const auto& i : items)
      if (i == b) return;
    items.push_back(b);
  }
};

// Joins with `sep`; a run of identical items (the same engine refused for several configs)
// is written once with its count, "engine 7 skipped (...) x5".
std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t run = 1;
    while (i + run < v.size() && v[i + run] == v[i]) ++run;
    s += (s.empty() ? "" : sep) + v[i] + (run > 1 ? " x" + std::to_string(run) : "");
    i += run;
  }
  return s;
}

struct Built {
  DescPtr plan;  // null when no engine config finalized
  std::size_t workspace = 0;
  std::string status;
};

// One rung: graph, then heuristics mode A and FALLBACK, every config until a plan finalizes.
Built build_level(cudnnHandle_t handle, const MatmulFusionShape& shape, MatmulFusionLevel level) {
  Built out;
  Graph graph;
  try {
    graph = build_graph(handle, shape, level);
  } catch (const std::exception& e) {
    out.status = "graph refused: " + brief(e.what());
    return out;
  }
  const std::pair<cudnnBackendHeurMode_t, const char*> modes[] = {{CUDNN_HEUR_MODE_A, "heur A"},
                                                                   {CUDNN_HEUR_MODE_FALLBACK, "heur FALLBACK"}};
  std::vector<std::string> per_mode;
  Details details;
  for (const auto& [mode, mode_name] : modes) {
    std::vector<std::string> tries;
    try {
      Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
      heur.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, *graph.graph)
          .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode);
      heur.finalize();
      std::vector<DescPtr> configs;
      std::vector<cudnnBackendDescriptor_t> raw;
      for (int i = 0; i < kMaxConfigs; ++i) {
        configs.push_back(std::make_unique<Descriptor>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
        raw.push_back(configs.back()->get());
      }
      int64_t count = 0;
      NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                  CUDNN_TYPE_BACKEND_DESCRIPTOR, kMaxConfigs, &count, raw.data()));
      if (count == 0) tries.push_back("no engine config");
      for (int64_t i = 0; i < count; ++i) {
        const Descriptor& config = *configs[std::size_t(i)];
        EngineInfo info;
        try {
          info = engine_info(config);
        } catch (const std::exception& e) {
          tries.push_back("config " + std::to_string(i) + " unreadable " + status_code(e.what()));
          details.add(e.what());
          continue;
        }
        const std::string tag = "engine " + std::to_string(info.index);
        if (!shape.allow_tf32 && info.uses_tf32()) {
          tries.push_back(tag + " skipped (notes " + info.notes() + ": TF32, not IEEE fp32)");
          continue;
        }
        try {
          auto plan = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
          plan->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle)
              .set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
          plan->finalize();
          int64_t ws = 0, n = 0;
          NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                      CUDNN_TYPE_INT64, 1, &n, &ws));
          std::ostringstream ok;
          ok << "ok (" << tag << ", " << mode_name << " config " << i + 1 << " of " << count << ", notes "
             << info.notes() << ", workspace " << ws << " B";
          if (!tries.empty() || !per_mode.empty()) {
            std::string before = join(per_mode, "; ");
            before += (before.empty() ? "" : "; ") + std::string(mode_name) + ": " + join(tries, ", ");
            ok << "; before it: " << before;
          }
          ok << ")";
          out.plan = std::move(plan);
          out.workspace = std::size_t(ws);
          out.status = ok.str();
          return out;
        } catch (const std::exception& e) {
          tries.push_back(tag + " " + status_code(e.what()));
          details.add(e.what());
        }
      }
    } catch (const std::exception& e) {
      tries.push_back("heuristics refused " + status_code(e.what()));
      details.add(e.what());
    }
    per_mode.push_back(std::string(mode_name) + ": " + join(tries, ", "));
  }
  out.status = "failed: " + join(per_mode, "; ");
  if (!details.items.empty()) out.status += " | " + join(details.items, " | ");
  return out;
}

void check_shape(const MatmulFusionShape& s) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0)
    throw UsageError("matmul fusion: m, n and k must be positive (got " + std::to_string(s.m) + ", " +
                     std::to_string(s.n) + ", " + std::to_string(s.k) + ")");
}

std::string describe(const MatmulFusionShape& s) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k) + " " +
         (s.allow_tf32 ? "tf32" : "fp32");
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
      Built b = build_level(handle, shape, level);
      status = std::move(b.status);
      if (b.plan && !probe.best) probe.best = level;
    } catch (const std::exception& e) {  // a descriptor could not even be created
      status = "error: " + brief(e.what());
    }
    probe.statuses.emplace_back(level, std::move(status));
  }
  return probe;
}

MatmulBiasScaleStats::MatmulBiasScaleStats(cudnnHandle_t handle, const MatmulFusionShape& shape)
    : handle_(handle), shape_(shape) {
  check_shape(shape);
  for (MatmulFusionLevel level : kMatmulFusionLadder) {
    Built b = build_level(handle, shape, level);
    statuses_.emplace_back(level, b.status);
    if (b.plan && matmul_fusion_has_epilogue(level)) {
      level_ = level;
      workspace_ = b.workspace;
      status_ = b.status;
      plan_ = b.plan->release();
      return;
    }
  }
  std::string msg = "cuDNN finalizes no matmul+bias+scale plan for " + describe(shape) + ":";
  for (const auto& [level, status] : statuses_) msg += "\n  " + matmul_fusion_level_name(level) + ": " + status;
  throw Unsupported(msg);
}

MatmulBiasScaleStats::~MatmulBiasScaleStats() {
  if (plan_) cudnnBackendDestroyDescriptor(plan_);
}

void MatmulBiasScaleStats::run(cudaStream_t stream, const float* x, const float* w, const float* bias,
                               const float* scale, float* h, float* col_sum, float* col_sumsq,
                               void* workspace) const {
  if (has_sum() && !col_sum) throw UsageError("MatmulBiasScaleStats::run: this plan writes col_sum; it is null");
  if (has_sumsq() && !col_sumsq)
    throw UsageError("MatmulBiasScaleStats::run: this plan writes col_sumsq; it is null");
  if (workspace_ > 0 && !workspace) throw UsageError("MatmulBiasScaleStats::run: the plan needs a workspace");
  NB_CUDNN_CHECK(cudnnSetStream(handle_, stream));
  std::vector<int64_t> uids = {kUidX, kUidW, kUidBias, kUidScale, kUidH};
  std::vector<void*> ptrs = {const_cast<float*>(x), const_cast<float*>(w), const_cast<float*>(bias),
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
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), int64_t(uids.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, ptrs.data(), int64_t(ptrs.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace);
  pack.finalize();
  NB_CUDNN_CHECK(cudnnBackendExecute(handle_, plan_, pack.get()));
}

}  // namespace nb
