// cuDNN backend graphs, built and planned (graph_plan.hpp).
#include "baselines/cudnn/graph_plan.hpp"

#include <exception>
#include <sstream>

#include "harness/library_check.hpp"

namespace nb::cudnn_backend {
namespace {

constexpr int kMaxConfigs = 32;  // engine configs asked of each heuristics mode

}  // namespace

DescPtr tensor(const TensorSpec& spec) {
  auto t = std::make_unique<Descriptor>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t alignment = 16;
  const auto rank = int64_t(spec.dims.size());
  if (spec.strides.size() != spec.dims.size())
    throw UsageError("cuDNN tensor " + std::to_string(spec.uid) + ": " + std::to_string(spec.dims.size()) +
                     " dims but " + std::to_string(spec.strides.size()) + " strides");
  t->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &spec.dtype)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, spec.dims.data(), rank)
      .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, spec.strides.data(), rank)
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &spec.uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
  const bool yes = true;
  if (spec.passing == TensorPassing::virtual_) t->set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &yes);
  if (spec.passing == TensorPassing::by_value) t->set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &yes);
  t->finalize();
  return t;
}

DescPtr tensor(int64_t uid, std::array<int64_t, 3> dims, std::array<int64_t, 3> strides, bool is_virtual) {
  return tensor(TensorSpec{uid, {dims.begin(), dims.end()}, {strides.begin(), strides.end()}, CUDNN_DATA_FLOAT,
                           is_virtual ? TensorPassing::virtual_ : TensorPassing::device});
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

namespace {

// Sets `name` to `d` where the operation has that tensor.
void set_optional(Descriptor& op, cudnnBackendAttributeName_t name, const Descriptor* d) {
  if (d) op.set_desc(name, *d);
}

}  // namespace

DescPtr norm_forward_op(cudnnBackendNormMode_t mode, cudnnBackendNormFwdPhase_t phase, const NormForwardTensors& t) {
  if (!t.x || !t.scale || !t.epsilon || !t.y)
    throw UsageError("norm_forward_op: x, scale, epsilon and y are required");
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  op->set(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, &mode)
      .set(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, &phase)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, *t.x)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, *t.scale)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, *t.epsilon)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, *t.y);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, t.bias);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, t.mean);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, t.inv_variance);
  op->finalize();
  return op;
}

DescPtr norm_backward_op(cudnnBackendNormMode_t mode, const NormBackwardTensors& t) {
  if (!t.x || !t.dy || !t.scale || !t.inv_variance || !t.dx || !t.dscale)
    throw UsageError("norm_backward_op: x, dy, scale, inv_variance, dx and dscale are required");
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR);
  op->set(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, &mode)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, *t.x)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, *t.dy)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, *t.scale)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, *t.inv_variance)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, *t.dx)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, *t.dscale);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, t.mean);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, t.dbias);
  op->finalize();
  return op;
}

void Graph::finalize(cudnnHandle_t handle) {
  graph = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle)
      .set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.data(), int64_t(ops.size()));
  graph->finalize();
}

// The message without " from <call> (<file>:<line>)": the status and cuDNN's own detail.
std::string brief(const std::string& what) {
  const auto from = what.find(" from ");
  const auto src = what.find(".cpp:", from == std::string::npos ? 0 : from);
  const auto close = src == std::string::npos ? std::string::npos : what.find(')', src);
  if (from == std::string::npos || close == std::string::npos) return what;
  return what.substr(0, from) + what.substr(close + 1);
}

namespace {

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

}  // namespace

PlannedGraph plan_graph(cudnnHandle_t handle, const std::function<Graph()>& build, bool allow_tf32) {
  PlannedGraph out;
  Graph graph;
  try {
    graph = build();
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
        if (!allow_tf32 && info.uses_tf32()) {
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

void execute_plan(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, std::vector<int64_t> uids,
                  std::vector<void*> pointers, void* workspace) {
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), int64_t(uids.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(), int64_t(pointers.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace);
  pack.finalize();
  NB_CUDNN_CHECK(cudnnBackendExecute(handle, plan, pack.get()));
}

}  // namespace nb::cudnn_backend
