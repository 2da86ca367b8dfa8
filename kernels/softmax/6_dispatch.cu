// Dispatch: the path by N (plan_dispatch). Rows up to 32 KB stay in registers from the load to the
// write: short rows in lane groups, several per warp (shuffles only), longer ones a block per row,
// 2-byte rows up to 64 KB a block per row held as stored, and up to 128 KB so in part and in part
// in each thread's shared-memory slots; longer rows go to onchip's clusters
// (5_onchip.cu). x is read once, in 16-byte packs where it can.
#include <algorithm>
#include <stdexcept>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/held_split_row.cuh"
#include "kernels/primitives/smem_opt_in.hpp"
#include "kernels/softmax/common.cuh"
#include "kernels/rows/rows_in_flight.hpp"
#include "kernels/softmax/onchip.hpp"
#include "harness/variant.hpp"

namespace nb::softmax {
namespace {

// The threads of a row reduce as a power-of-two lane group (blockDim.x <= 32, blockDim.y rows per
// block) by shuffles alone, or as a whole block (blockDim.x a multiple of 32, one row). Every
// thread of the row gets the same result.
struct LaneGroup {
  template <class Op>
  __device__ float reduce(float v, Op op, float*) const {
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(dev::kFullMask, v, offset));
    return v;
  }
};

struct WholeBlock {
  template <class Op>
  __device__ float reduce(float v, Op op, float* scratch) const {
    return dev::block_reduce(v, op, scratch);
  }
};

// Thread threadIdx.x of a row owns its packs threadIdx.x + k * blockDim.x (k < PPT): loaded once
// into registers, turned into exp(x - max) in place, scaled by 1 / sum and stored. Rows past the
// end still take part in the reductions, so every lane of a warp reaches every shuffle.
template <class T, int VEC, int PPT, class Reducer>
__global__ void __launch_bounds__(kMaxLanes) register_rows(Args<T> a, int packs) {
  __shared__ float scratch[32];
  const Reducer reducer;
  const long long stride = (long long)blockDim.x * VEC;  // elements between one thread's packs
  const long long first = (long long)threadIdx.x * VEC;
  const int owned = packs - int(threadIdx.x);  // pack k is mine when k * blockDim.x < owned
  for (long long row0 = blockIdx.x * (long long)blockDim.y; row0 < a.m; row0 += gridDim.x * (long long)blockDim.y) {
    const long long row = row0 + threadIdx.y;
    const bool active = row < a.m;
    const T* x = a.x + row * a.n + first;
    dev::FloatPack<VEC> v[PPT];
    dev::load_packs_as_float<T, VEC>(x, stride, [&](int k) { return active && k * int(blockDim.x) < owned; }, v);
    float mx = -FLT_MAX;
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (active && k * int(blockDim.x) < owned) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) mx = fmaxf(mx, v[k].v[i]);
      }
    mx = reducer.reduce(mx, dev::MaxOp{}, scratch);
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (active && k * int(blockDim.x) < owned) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) sum += (v[k].v[i] = exp_shifted<T>(v[k].v[i], mx));
      }
    const float inv = 1.0f / reducer.reduce(sum, dev::SumOp{}, scratch);
    T* y = a.y + row * a.n + first;
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (active && k * int(blockDim.x) < owned) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) v[k].v[i] *= inv;
        dev::store_from_float<T, VEC>(y + k * stride, v[k]);
      }
  }
}

// Rows of 32-64 KB of 2-byte values, a block per row holding its packs as stored (two values a
// register: 64 a thread in 32 registers, where their fp32 exps would take 64): the max from the
// widened packs, then the sum of exp(x - max), then exp(x - max) again times 1 / sum at the write.
template <class T, int VEC, int PPT, int kMinBlocks = 2>
__global__ void __launch_bounds__(kMaxHeldLanes, kMinBlocks) held_rows(Args<T> a, int packs) {
  __shared__ float scratch[32];
  const int stride = blockDim.x * VEC;        // elements between one thread's packs
  const int owned = packs - int(threadIdx.x);  // pack k is mine when k * blockDim.x < owned
  const auto mine = [&](int k) { return k * int(blockDim.x) < owned; };
  for (long long row = blockIdx.x; row < a.m; row += gridDim.x) {
    const int at = dev::opaque(int(threadIdx.x) * VEC);
    dev::PackWord<T, VEC> raw[PPT];  // zeros past the row's end
    dev::load_pack_words<T, VEC>(a.x + row * a.n + at, stride, mine, raw);
    float mx = -FLT_MAX;
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (mine(k)) {
        const dev::FloatPack<VEC> v = dev::rewiden<T, VEC>(raw[k]);
#pragma unroll
        for (int i = 0; i < VEC; ++i) mx = fmaxf(mx, v.v[i]);
      }
    mx = dev::block_reduce(mx, dev::MaxOp{}, scratch);
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (mine(k)) {
        const dev::FloatPack<VEC> v = dev::rewiden<T, VEC>(raw[k]);
#pragma unroll
        for (int i = 0; i < VEC; ++i) sum += exp_shifted<T>(v.v[i], mx);
      }
    const float inv = 1.0f / dev::block_reduce(sum, dev::SumOp{}, scratch);
    T* y = a.y + row * a.n + at;
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (mine(k)) {
        dev::FloatPack<VEC> v = dev::rewiden<T, VEC>(raw[k]);
#pragma unroll
        for (int i = 0; i < VEC; ++i) v.v[i] = exp_shifted<T>(v.v[i], mx) * inv;
        dev::store_from_float<T, VEC>(y + k * stride, v);
      }
  }
}

// Rows of 64-128 KB of 2-byte values: held_rows' block with as many packs again in each thread's
// own shared-memory slots (dev::HeldSplitRow), read again at each of the three passes.
template <class T>
__global__ void __launch_bounds__(kMaxHeldLanes, 2) held_split_rows(Args<T> a, int packs) {
  constexpr int kVec = dev::kPack16<T>;
  static_assert(kHeldValuesPerThread / kVec == kHeldSplitSlotPacks, "as many packs held as in the slots");
  extern __shared__ uint4 slots[];
  __shared__ float scratch[32];
  for (long long row = blockIdx.x; row < a.m; row += gridDim.x) {
    // The row's offsets made in the loop's body (dev::opaque), not held through it in registers.
    dev::HeldSplitRow<T, kHeldSplitSlotPacks> r{slots, dev::opaque(int(blockDim.x)), packs - int(threadIdx.x)};
    const int at = dev::opaque(int(threadIdx.x) * kVec);
    r.load(a.x + row * a.n + at);
    float mx = -FLT_MAX;
    r.each_mine([&](const dev::FloatPack<kVec>& v, int) {
#pragma unroll
      for (int i = 0; i < kVec; ++i) mx = fmaxf(mx, v.v[i]);
    });
    mx = dev::block_reduce(mx, dev::MaxOp{}, scratch);
    float sum = 0.f;
    r.each_mine([&](const dev::FloatPack<kVec>& v, int) {
#pragma unroll
      for (int i = 0; i < kVec; ++i) sum += exp_shifted<T>(v.v[i], mx);
    });
    const float inv = 1.0f / dev::block_reduce(sum, dev::SumOp{}, scratch);
    T* y = a.y + row * a.n + at;
    r.each_mine([&](dev::FloatPack<kVec> v, int k) {
#pragma unroll
      for (int i = 0; i < kVec; ++i) v.v[i] = exp_shifted<T>(v.v[i], mx) * inv;
      dev::store_from_float<T, kVec>(y + r.offset(k), v);
    });
  }
}

template <class T, int VEC>
constexpr int kMaxPacks = max_floats_per_thread(VEC, int(sizeof(T))) / VEC;

// The instance for plan.packs_per_thread. Lane groups take any power of two up to kMaxPacks; a
// block per row always gets kMaxPacks (plan_dispatch's invariant), so only that one is built.
template <class T, int VEC, class Reducer, int PPT>
void launch_register(const DispatchPlan& plan, const Args<T>& a, cudaStream_t stream) {
  if constexpr (PPT <= kMaxPacks<T, VEC>) {
    if (plan.packs_per_thread != PPT) return launch_register<T, VEC, Reducer, PPT * 2>(plan, a, stream);
    const long long blocks = std::min<long long>(dev::ceil_div(a.m, plan.rows_per_block), 0x7fffffffLL);
    register_rows<T, VEC, PPT, Reducer>
        <<<unsigned(blocks), dim3(plan.lanes, plan.rows_per_block), 0, stream>>>(a, int(plan.packs));
  } else {
    throw std::logic_error("dispatch: no register kernel for " + std::to_string(plan.packs_per_thread) +
                           " packs per thread");
  }
}

// held_rows over every row, kPacks packs a thread, at least kMinBlocks blocks an SM.
template <class T, int VEC, int kPacks, int kMinBlocks = 2>
void launch_held_rows(const DispatchPlan& plan, const Args<T>& a, cudaStream_t stream) {
  if constexpr (sizeof(T) == 2 && VEC * sizeof(T) == 16) {
    const long long blocks = std::min<long long>(a.m, 0x7fffffffLL);
    held_rows<T, VEC, kPacks, kMinBlocks><<<unsigned(blocks), plan.lanes, 0, stream>>>(a, int(plan.packs));
  } else {
    throw std::logic_error("dispatch: only 16-byte packs of 2-byte values are held as stored");
  }
}

template <class T, int VEC>
void launch_held(const DispatchPlan& plan, const Args<T>& a, cudaStream_t stream) {
  constexpr int kPacks = kHeldValuesPerThread / VEC;
  if (plan.packs_per_thread != kPacks) throw std::logic_error("dispatch: the held block takes 8 packs a thread");
  launch_held_rows<T, VEC, kPacks>(plan, a, stream);
}

// 2-byte rows of 16384 (a block of 512 lanes, four packs a thread) at three blocks an SM where
// rows_in_flight picks three: held as stored (held_rows) under 40 registers a thread, where the
// block row's fp32 exps take about 50.
template <class T, int VEC>
bool three_blocks_an_sm(const DispatchPlan& plan) {
  return sizeof(T) == 2 && VEC * sizeof(T) == 16 && plan.path == DispatchPath::block_row &&
         plan.packs_per_thread == kMaxPacks<T, VEC> && rows::launches_three_blocks(plan.lanes);
}

// The held split's opt-in to its shared memory, once per storage type; false where the device
// refuses it (launch then takes the onchip path).
template <class T>
bool held_split_allowed() {
  if constexpr (sizeof(T) == 2) return dynamic_smem_allowed<held_split_rows<T>, held::kMaxSlotBytes>();
  return false;
}

template <class T, int VEC>
void launch_held_split(const DispatchPlan& plan, const Args<T>& a, cudaStream_t stream) {
  if constexpr (sizeof(T) == 2 && VEC * sizeof(T) == 16) {
    const long long blocks = std::min<long long>(a.m, 0x7fffffffLL);
    held_split_rows<T><<<unsigned(blocks), plan.lanes, size_t(plan.held_split_smem_bytes()), stream>>>(
        a, int(plan.packs));
  } else {
    throw std::logic_error("dispatch: only 16-byte packs of 2-byte values are held as stored");
  }
}

template <class T, int VEC>
void launch_registers(const DispatchPlan& plan, const Args<T>& a, cudaStream_t stream) {
  if (plan.path == DispatchPath::lane_groups) launch_register<T, VEC, LaneGroup, 1>(plan, a, stream);
  else if (plan.path == DispatchPath::held_block) launch_held<T, VEC>(plan, a, stream);
  else if (plan.path == DispatchPath::held_split) launch_held_split<T, VEC>(plan, a, stream);
  else if (three_blocks_an_sm<T, VEC>(plan)) launch_held_rows<T, VEC, kMaxPacks<T, VEC>, 3>(plan, a, stream);
  else launch_register<T, VEC, WholeBlock, kMaxPacks<T, VEC>>(plan, a, stream);
}

void launch(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) {
  dispatch_storage(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const Args<T> a = make_args<T>(p, t);
    const DispatchPlan plan = plan_dispatch(a.n, int(sizeof(T)), pack_width(a));
    if (!plan.registers() || (plan.path == DispatchPath::held_split && !held_split_allowed<T>()))
      return launch_onchip(p, t, workspace, stream);
    dispatch_pack<T>(plan.vec, [&](auto vec) { launch_registers<T, decltype(vec)::value>(plan, a, stream); });
  });
  NB_CHECK_LAUNCH();
}

// The register paths run any row up to 32 KB; longer rows are onchip's to accept or refuse, the
// held block's and the held split's too (rows off 16-byte boundaries go onchip).
Support supports(const Problem& p) {
  const Shape s = shape_of(p);
  const int bytes = int(dtype_size(storage_type(p.dtype)));
  const DispatchPlan plan = plan_dispatch(s.n, bytes, row_pack_width(s.n, bytes, 0, 0));
  if (plan.registers() && !plan.held()) return Support::yes();
  return onchip_supports(p);
}

}  // namespace

std::unique_ptr<Variant> make_dispatch_variant() {
  return make_kernel_variant({
      "dispatch", "fused",
      "path by n: rows <= 32 KB in registers (lane groups of a warp for short rows, a block per row above; bf16/fp16 "
      "rows <= 64 KB held as stored, exp taken twice; <= 128 KB so, half of each thread's share in its shared-memory "
      "slots), longer rows onchip (cluster, shared memory); x read once, 16-byte packs",
      launch, supports, onchip_workspace_bytes, {}});
}

}  // namespace nb::softmax
