#pragma once
// The host side of the fused row backwards, written once for their designs (3_fused.cu: rows in
// registers or streamed; 5_fused_tma.cu: rows fed by TMA): the launch of a plan over bands of
// rows and clusters of parts, the occupancy that sizes the bands, 16-byte packs where N and the
// pointers allow them, and the variant, which plans once per problem and adds the bands' partial
// column sums in order after the kernel. A design provides
//   static std::string name(), idea();
//   static FusedPlan plan(const Layout&, const Problem&, int vec);    // vec: 16 bytes' elements, or 1
//   template <bool kLayer, class T, class F> static void with_kernel(const FusedPlan&, F&& f);  // f(Kernel<T>)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "harness/cuda_check.hpp"
#include "harness/errors.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/cluster_launch.hpp"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/column_totals.hpp"
#include "kernels/rows/rows_bwd/fused_geometry.cuh"
#include "kernels/rows/rows_bwd/fused_plan.hpp"

namespace nb::rows_bwd {

template <class T>
using Kernel = void (*)(Args<T>, Geometry, float*);

inline cudaLaunchConfig_t launch_config(const FusedPlan& plan, long long bands, cudaStream_t stream,
                                        cudaLaunchAttribute& cluster) {
  return cluster_launch_config(dim3(unsigned(bands * plan.parts)),
                               dim3(unsigned(plan.lanes), unsigned(plan.rows_per_block)), plan.shared_bytes, stream,
                               unsigned(plan.parts), plan.parts > 1, cluster);
}

// How many clusters of the plan's kernel run at once on the current device, after giving the
// kernel the shared memory and cluster size it needs; `variant` names the one that declines.
template <class T>
long long resident_clusters(Kernel<T> kernel, const FusedPlan& plan, const std::string& variant) {
  if (plan.shared_bytes > 0)  // (48 KB of stages and the static barriers pass the default limit together)
    NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.shared_bytes)));
  if (plan.parts > kPortableClusterSize)
    NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int count = 0;
  if (plan.parts == 1) {
    int device = 0, sms = 0;
    NB_CUDA_CHECK(cudaGetDevice(&device));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, kernel, plan.threads(), plan.shared_bytes));
    count *= sms;
  } else {
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t config = launch_config(plan, 1, nullptr, cluster);
    const cudaError_t status = cudaOccupancyMaxActiveClusters(&count, kernel, &config);
    if (status != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it for the next variant's launch check
      throw Unsupported(variant + ": clusters of " + std::to_string(plan.parts) + " refused (" +
                        cudaGetErrorString(status) + ")");
    }
  }
  if (count < 1)
    throw Unsupported(variant + ": this device runs no cluster of " + std::to_string(plan.parts) + " CTAs of " +
                      std::to_string(plan.threads()) + " threads with " + std::to_string(plan.shared_bytes) +
                      " bytes of shared memory");
  return count;
}

// 16-byte packs when N and every row pointer allow them.
template <class T>
bool packs_fit(const Args<T>& a) {
  return a.n % nb::dev::kPack16<T> == 0 && nb::dev::aligned16(a.x) && nb::dev::aligned16(a.dy) &&
         nb::dev::aligned16(a.w) && nb::dev::aligned16(a.dx);
}

inline int pack_elements(const Problem& p) { return int(16 / dtype_size(storage_type(p.dtype))); }

// The harness's buffers are aligned: packs whenever N allows them.
inline bool packs_expected(const Problem& p) { return p.dim("n") % pack_elements(p) == 0; }

template <class Design>
class FusedVariant final : public Variant {
 public:
  explicit FusedVariant(const Layout& layout) : layout_(layout) {}

  std::string name() const override { return Design::name(); }
  std::string kind() const override { return "fused"; }
  std::string idea() const override { return Design::idea(); }

  Support supports(const Problem& p) const override {
    const FusedPlan plan = plan_of(p, packs_expected(p));
    return plan.unsupported.empty() ? Support::yes() : Support::no(plan.unsupported);
  }

  // Bands never outnumber M / kMinBandRounds (band_count): room for that many partial rows.
  std::size_t workspace_bytes(const Problem& p) const override {
    const long long bands = std::min<long long>(kMaxBands, (p.dim("m") + kMinBandRounds - 1) / kMinBandRounds);
    return std::size_t(bands) * std::size_t(p.dim("n")) * sizeof(float) * std::size_t(layout_.column_sums());
  }

  // The occupancy queries and kernel attributes, outside the timed launches.
  void prepare(const Problem& p) override { launch_plan(p, packs_expected(p)); }

  void launch(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) override {
    dispatch_storage(p.dtype, [&](auto type) {
      using T = decltype(type);
      const Args<T> a = args_of<T>(layout_, p, t);
      if (layout_.layer()) run<true>(p, a, static_cast<float*>(workspace), stream);
      else run<false>(p, a, static_cast<float*>(workspace), stream);
    });
  }

 private:
  FusedPlan plan_of(const Problem& p, bool packs) const {
    return Design::plan(layout_, p, packs ? pack_elements(p) : 1);
  }

  struct Cached {
    std::string problem;
    bool packs = false;
    FusedPlan plan;
    long long bands = 0;
  };

  template <class T, bool kLayer>
  Cached make_cached(const Problem& p, bool packs) const {
    Cached c{p.id(), packs, plan_of(p, packs), 0};
    if (!c.plan.unsupported.empty()) throw Unsupported(Design::name() + ": " + c.plan.unsupported);
    Design::template with_kernel<kLayer, T>(c.plan, [&](Kernel<T> kernel) {
      c.bands = band_count(p.dim("m"), c.plan, resident_clusters(kernel, c.plan, Design::name()));
    });
    return c;
  }

  const Cached& launch_plan(const Problem& p, bool packs) {
    if (cached_.problem == p.id() && cached_.packs == packs) return cached_;
    dispatch_storage(p.dtype, [&](auto type) {
      using T = decltype(type);
      cached_ = layout_.layer() ? make_cached<T, true>(p, packs) : make_cached<T, false>(p, packs);
    });
    return cached_;
  }

  template <bool kLayer, class T>
  void run(const Problem& p, const Args<T>& a, float* partials, cudaStream_t stream) {
    const Cached& c = launch_plan(p, packs_fit(a));
    const Geometry g{c.bands, c.plan.packs, c.plan.packs_per_part, c.plan.parts, 1.0f / float(a.n)};
    Design::template with_kernel<kLayer, T>(c.plan, [&](Kernel<T> kernel) {
      cudaLaunchAttribute cluster;
      const cudaLaunchConfig_t config = launch_config(c.plan, c.bands, stream, cluster);
      NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, a, g, partials));
      NB_CHECK_LAUNCH();
    });
    void* const out[2] = {a.dw, a.db};
    launch_column_totals(p.dtype, partials, c.bands, a.n, kLayer ? 2 : 1, out, stream);
  }

  Layout layout_;
  Cached cached_;
};

}  // namespace nb::rows_bwd
