#pragma once
// The cuDNN plans of a pipeline variant: its handle, and one plan per problem shape and precision
// (M, N, K, dtype) built in prepare(), before any allocation for the problem. A shape cuDNN
// refuses is remembered with its statuses and refused again at once (baselines/cudnn/plan_cache).
#include <cstddef>
#include <cstdint>
#include <tuple>

#include "baselines/cudnn/plan_cache.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"

namespace nb::linear {

template <class Plan>
class CudnnPlans {
 public:
  // Finds or builds (build(handle, shape, plan cache use), which throws Unsupported with cuDNN's
  // statuses) the plan of p and makes it the current one; rethrows a remembered refusal.
  template <class Build>
  void prepare(const Problem& p, Build build) {
    const Shape s = shape_of(p);
    cache_.prepare(key_of(p), [&](cudnnHandle_t handle, const cudnn_backend::PlanCacheUse& cache) {
      return build(handle, s, cache);
    });
  }
  void use_plan_cache(const PlanCacheSetting& setting) { cache_.use_plan_cache(setting); }
  void open() { cache_.open(); }  // the handle, now
  std::vector<PlanEvent> take_events() { return cache_.take_events(); }

  // The plan of p, or null before prepare(p) (or after a refusal).
  const Plan* find(const Problem& p) const { return cache_.find(key_of(p)); }
  const Plan& current() const { return cache_.current(); }
  // Where a variant's own workspace starts after a plan's: 256-byte aligned.
  static std::size_t aligned(std::size_t bytes) { return Cache::aligned(bytes); }

 private:
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, DType>;
  using Cache = cudnn_backend::CudnnPlanCache<Key, Plan>;
  static Key key_of(const Problem& p) {
    const Shape s = shape_of(p);
    return {s.m, s.n, s.k, s.dtype};
  }

  Cache cache_;
};

}  // namespace nb::linear
