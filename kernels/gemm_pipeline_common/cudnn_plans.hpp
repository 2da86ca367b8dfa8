#pragma once
// The cuDNN plans of a pipeline variant: its handle, and one plan per problem shape and precision
// (M, N, K, tf32) built in prepare(), before any allocation for the problem. A shape cuDNN
// refuses is remembered with its statuses and refused again at once: probing again would only
// repeat it.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "harness/library_check.hpp"
#include "kernels/gemm_pipeline_common/linear_shape.hpp"

namespace nb::linear {

template <class Plan>
class CudnnPlans {
 public:
  CudnnPlans() = default;
  CudnnPlans(const CudnnPlans&) = delete;
  CudnnPlans& operator=(const CudnnPlans&) = delete;
  ~CudnnPlans() {
    plans_.clear();  // the plans borrow the handle
    if (handle_) cudnnDestroy(handle_);
  }

  // Finds or builds (build(handle, shape), which throws Unsupported with cuDNN's statuses) the
  // plan of p and makes it the current one; rethrows a remembered refusal.
  template <class Build>
  void prepare(const Problem& p, Build build) {
    if (!handle_) NB_CUDNN_CHECK(cudnnCreate(&handle_));
    const Key key = key_of(p);
    current_ = nullptr;
    if (const auto r = refusals_.find(key); r != refusals_.end()) throw Unsupported(r->second);
    if (!plans_.count(key)) {
      try {
        plans_[key] = build(handle_, shape_of(p));
      } catch (const Unsupported& e) {
        refusals_[key] = e.what();
        throw;
      }
    }
    current_ = plans_[key].get();
  }

  // The plan of p, or null before prepare(p) (or after a refusal).
  const Plan* find(const Problem& p) const {
    const auto it = plans_.find(key_of(p));
    return it == plans_.end() ? nullptr : it->second.get();
  }
  const Plan& current() const {
    if (!current_) throw Unsupported("the cuDNN plan was not prepared");
    return *current_;
  }
  // Where a variant's own workspace starts after a plan's: 256-byte aligned.
  static std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

 private:
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>;
  static Key key_of(const Problem& p) {
    const Shape s = shape_of(p);
    return {s.m, s.n, s.k, s.tf32()};
  }

  cudnnHandle_t handle_ = nullptr;
  std::map<Key, std::unique_ptr<Plan>> plans_;
  std::map<Key, std::string> refusals_;
  const Plan* current_ = nullptr;
};

}  // namespace nb::linear
