#pragma once
// The host side of the TMA-fed rows (kernel.cuh), written once for the ops that use them: the plan
// of a problem (or why none), the kernel's shared memory and cluster attributes and the resident
// clusters that size its persistent grid (in prepare(), outside the timed launches), and the launch.
// `Op` gives the op's row and tensors:
//   template <class T, int VEC, int PPT> using Row = ...;   // kernel.cuh's Norm
//   static std::string idea(); static std::vector<Distribution> claims();
//   template <class T> static Tensors tensors(const Problem&, const DeviceTensors&);
//   static bool aligned16(const Tensors&);                   // every row pointer on 16 bytes
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/dtype.hpp"
#include "harness/errors.hpp"
#include "harness/variant.hpp"
#include "kernels/primitives/cluster_occupancy.hpp"
#include "kernels/rows/row_shape.hpp"
#include "kernels/primitives/cluster_launch.hpp"
#include "kernels/rows/tma_rows/kernel.cuh"
#include "kernels/rows/tma_rows/plan.hpp"

namespace nb::rows::tma {

template <class Op>
class TmaRowVariant final : public Variant {
 public:
  std::string name() const override { return "tma_row"; }
  std::string kind() const override { return "register"; }
  std::string idea() const override { return Op::idea(); }
  std::vector<Distribution> claims() const override { return Op::claims(); }

  Support supports(const Problem& p) const override {
    const Plan plan = plan_of(p);
    return plan.unsupported.empty() ? Support::yes() : Support::no(plan.unsupported);
  }

  void prepare(const Problem& p) override { cached(p); }

  void launch(const Problem& p, const DeviceTensors& d, void*, cudaStream_t stream) override {
    dispatch_storage(p.dtype, [&](auto type) {
      using T = decltype(type);
      const auto t = Op::template tensors<T>(p, d);
      if (!Op::aligned16(t)) throw Unsupported("tma_row: the bulk copies need x, w and y on 16 bytes");
      const Cached& c = cached(p);
      const RowShape s = RowShape::of(p);
      const Geometry g{s.m, s.n, c.plan.packs, c.plan.packs_per_part, c.bands, c.plan.parts, 1.0f / float(s.n), s.eps};
      cudaLaunchAttribute cluster;
      const cudaLaunchConfig_t config = config_of(c.plan, c.bands, stream, cluster);
      NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel<T>(), t, g));
      NB_CHECK_LAUNCH();
    });
  }

 private:
  struct Cached {
    std::string problem;
    Plan plan;
    long long bands = 0;
  };

  template <class T>
  static auto kernel() {
    return tma_rows<Op::template Row, T>;
  }

  static Plan plan_of(const Problem& p) {
    return plan_tma_rows(p.dim("n"), int(dtype_size(storage_type(p.dtype))));
  }

  static cudaLaunchConfig_t config_of(const Plan& plan, long long bands, cudaStream_t stream,
                                      cudaLaunchAttribute& cluster) {
    return cluster_launch_config(dim3(unsigned(bands * plan.parts)), dim3(unsigned(plan.threads())),
                                 plan.shared_bytes, stream, unsigned(plan.parts), true, cluster);
  }

  const Cached& cached(const Problem& p) {
    if (cached_.problem == p.id()) return cached_;
    Cached c{p.id(), plan_of(p), 0};
    if (!c.plan.unsupported.empty()) throw Unsupported("tma_row: " + c.plan.unsupported);
    dispatch_storage(p.dtype, [&](auto type) {
      using T = decltype(type);
      const auto k = kernel<T>();
      NB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(c.plan.shared_bytes)));
      if (c.plan.parts > 8) NB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      cudaLaunchAttribute cluster;
      const int resident =
          resident_clusters(reinterpret_cast<const void*>(k), config_of(c.plan, 1, nullptr, cluster));
      if (resident < 1)
        throw Unsupported("tma_row: this device runs no cluster of " + std::to_string(c.plan.parts) + " CTAs of " +
                          std::to_string(c.plan.threads()) + " threads with " +
                          std::to_string(c.plan.shared_bytes) + " bytes of shared memory");
      c.bands = band_count(p.dim("m"), resident);
    });
    cached_ = c;
    return cached_;
  }

  Cached cached_;
};

}  // namespace nb::rows::tma
