#include "baselines/cudnn/matmul_prologue_cudnn.hpp"

#include <algorithm>
#include <cstdint>

#include "baselines/cudnn/graph_plan.hpp"
#include "baselines/library_alignment.hpp"
#include "harness/library_check.hpp"

namespace nb {
namespace {

using namespace cudnn_backend;

enum Uid : int64_t {
  kUidDy = 1, kUidG, kUidA, kUidB, kUidC, kUidShift, kUidWeight, kUidX, kUidDx, kUidDw, kUidDg,
  kUidCentred = 101, kUidSpread, kUidOffset, kUidScaledDy, kUidDgVirtual,
};

enum class Product { dx, dw };

// The problem's linear storage (fp32, or bf16): g, W, x, dx, dW and dg.
cudnnDataType_t linear_storage(const PrologueGemmShape& s) { return s.bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT; }

// dg as the prologue makes it (virtual), or read from memory (the control), in the layout the
// product needs: (1, M, N) for dx = dg W, its transpose view (1, N, M) for dW = dg^T x.
const Descriptor& dg_operand(Graph& g, const PrologueGemmShape& s, Product product, bool prologue) {
  const int64_t m = s.m, n = s.n;
  const std::array<int64_t, 3> dims = product == Product::dx ? std::array<int64_t, 3>{1, m, n}
                                                             : std::array<int64_t, 3>{1, n, m};
  const std::array<int64_t, 3> strides = product == Product::dx ? std::array<int64_t, 3>{m * n, n, 1}
                                                                : std::array<int64_t, 3>{m * n, 1, n};
  if (!prologue) return g.keep(tensor(kUidDg, dims, strides, false, linear_storage(s)));
  auto matrix = [&](int64_t uid, bool is_virtual) -> const Descriptor& {
    return g.keep(tensor(uid, dims, strides, is_virtual));
  };
  const std::array<int64_t, 3> vdims = product == Product::dx ? std::array<int64_t, 3>{1, 1, n}
                                                              : std::array<int64_t, 3>{1, n, 1};
  const std::array<int64_t, 3> vstrides = product == Product::dx ? std::array<int64_t, 3>{n, n, 1}
                                                                 : std::array<int64_t, 3>{n, 1, 1};
  auto column_vector = [&](int64_t uid) -> const Descriptor& { return g.keep(tensor(uid, vdims, vstrides, false)); };
  const Descriptor &dy = matrix(kUidDy, false), &gm = g.keep(tensor(kUidG, dims, strides, false, linear_storage(s)));
  const Descriptor &a = column_vector(kUidA), &b = column_vector(kUidB), &c = column_vector(kUidC),
                   &shift = column_vector(kUidShift);
  const Descriptor &centred = matrix(kUidCentred, true), &spread = matrix(kUidSpread, true),
                   &offset = matrix(kUidOffset, true), &scaled_dy = matrix(kUidScaledDy, true),
                   &dg = g.keep(tensor(kUidDgVirtual, dims, strides, true, linear_storage(s)));
  g.add_op(pointwise_op(CUDNN_POINTWISE_SUB, gm, shift, centred));
  g.add_op(pointwise_op(CUDNN_POINTWISE_MUL, centred, b, spread));
  g.add_op(pointwise_op(CUDNN_POINTWISE_ADD, spread, c, offset));
  g.add_op(pointwise_op(CUDNN_POINTWISE_MUL, dy, a, scaled_dy));
  g.add_op(pointwise_op(CUDNN_POINTWISE_ADD, scaled_dy, offset, dg));
  return dg;
}

Graph build_graph(cudnnHandle_t handle, const PrologueGemmShape& s, Product product, bool prologue) {
  const int64_t m = s.m, n = s.n, k = s.k;
  Graph g;
  const Descriptor& dg = dg_operand(g, s, product, prologue);
  if (product == Product::dx) {
    const Descriptor& w = g.keep(tensor(kUidWeight, {1, n, k}, {n * k, k, 1}, false, linear_storage(s)));
    const Descriptor& dx = g.keep(tensor(kUidDx, {1, m, k}, {m * k, k, 1}, false, linear_storage(s)));
    g.add_op(matmul_op(dg, w, dx));
  } else {
    const Descriptor& x = g.keep(tensor(kUidX, {1, m, k}, {m * k, k, 1}, false, linear_storage(s)));
    const Descriptor& dw = g.keep(tensor(kUidDw, {1, n, k}, {n * k, k, 1}, false, linear_storage(s)));
    g.add_op(matmul_op(dg, x, dw));
  }
  g.finalize(handle);
  return g;
}

}  // namespace

MatmulPrologueGemms::MatmulPrologueGemms(cudnnHandle_t handle, const PrologueGemmShape& shape,
                                         const PlanCacheUse& cache)
    : handle_(handle), shape_(shape) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) throw UsageError("matmul prologue: m, n and k must be positive");
  const std::string size = "M=" + std::to_string(shape.m) + " N=" + std::to_string(shape.n) +
                           " K=" + std::to_string(shape.k) + " " + operand_precision(shape.bf16, shape.allow_tf32);
  const PlanCacheUse control_use{nullptr, "", cache.events};  // a control is planned for its status, never kept
  bool all_planned = true;
  for (const Product product : {Product::dx, Product::dw}) {
    const std::string name = product == Product::dx ? "dx = dg W" : "dW = dg^T x";
    PlannedGraph fused = plan_graph(handle, [&] { return build_graph(handle, shape, product, true); },
                                    shape.tensor_cores(), name + " with the dg prologue " + size, cache);
    statuses_.emplace_back(name + ", dg in a pointwise prologue", fused.status);
    if (!fused.plan) {
      all_planned = false;
      const PlannedGraph control = plan_graph(handle, [&] { return build_graph(handle, shape, product, false); },
                                              shape.tensor_cores(), name + " alone (control) " + size, control_use);
      statuses_.emplace_back(name + " alone (control)", control.status);
      continue;
    }
    workspace_ = std::max(workspace_, fused.workspace);
    (product == Product::dx ? dx_plan_ : dw_plan_) = fused.plan->release();
  }
  if (all_planned) return;
  std::string msg = "cuDNN finalizes no matmul with a pointwise prologue for " + size + ":";
  for (const auto& [what, status] : statuses_) msg += "\n  " + what + ": " + status;
  throw Unsupported(msg);
}

MatmulPrologueGemms::~MatmulPrologueGemms() {
  if (dx_plan_) cudnnBackendDestroyDescriptor(dx_plan_);
  if (dw_plan_) cudnnBackendDestroyDescriptor(dw_plan_);
}

void MatmulPrologueGemms::run(cudaStream_t stream, const ProloguePointers& dg, const void* weight, const void* x,
                              void* dx, void* dweight, void* workspace) const {
  require_library_alignment("cuDNN's matmul fusion",
                            {{"dy", dg.dy}, {"g", dg.g}, {"a", dg.a}, {"b", dg.b}, {"c", dg.c}, {"shift", dg.shift},
                             {"W", weight}, {"x", x}, {"dx", dx}, {"dW", dweight}});
  NB_CUDNN_CHECK(cudnnSetStream(handle_, stream));
  auto in = [](const void* p) { return const_cast<void*>(p); };
  const std::vector<int64_t> prologue_uids = {kUidDy, kUidG, kUidA, kUidB, kUidC, kUidShift};
  const std::vector<void*> prologue_ptrs = {in(dg.dy), in(dg.g), in(dg.a), in(dg.b), in(dg.c), in(dg.shift)};
  auto with = [&](std::initializer_list<int64_t> uids, std::initializer_list<void*> ptrs) {
    std::pair<std::vector<int64_t>, std::vector<void*>> pack{prologue_uids, prologue_ptrs};
    pack.first.insert(pack.first.end(), uids);
    pack.second.insert(pack.second.end(), ptrs);
    return pack;
  };
  const auto dx_pack = with({kUidWeight, kUidDx}, {in(weight), dx});
  execute_plan(handle_, dx_plan_, dx_pack.first, dx_pack.second, workspace);
  const auto dw_pack = with({kUidX, kUidDw}, {in(x), dweight});
  execute_plan(handle_, dw_plan_, dw_pack.first, dw_pack.second, workspace);
}

}  // namespace nb
