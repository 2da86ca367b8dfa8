#pragma once
// The cuDNN plans of one baseline variant: a handle, created on first use, and one plan per key
// (shape, precision, ...) built in prepare(), before any allocation for the problem. A key cuDNN
// refuses is remembered with its statuses and refused again at once: planning again would only
// repeat it. PlanCache is the memory alone (no cuDNN call in it); CudnnPlanCache adds the handle.
#include <cudnn.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "harness/errors.hpp"
#include "harness/library_check.hpp"

namespace nb::cudnn_backend {

template <class Key, class Plan>
class PlanCache {
 public:
  // The plan of key, built by build() (a std::unique_ptr<Plan>; it throws nb::Unsupported with
  // cuDNN's statuses) the first time; a remembered refusal is thrown again without building.
  template <class Build>
  const Plan& get(const Key& key, Build build) {
    if (const std::string* why = refusal(key)) throw Unsupported(*why);
    auto it = plans_.find(key);
    if (it == plans_.end()) {
      try {
        it = plans_.emplace(key, build()).first;
      } catch (const Unsupported& e) {
        refusals_[key] = e.what();
        throw;
      }
    }
    return *it->second;
  }

  // The plan of key, or null when it was never built (or was refused).
  const Plan* find(const Key& key) const {
    const auto it = plans_.find(key);
    return it == plans_.end() ? nullptr : it->second.get();
  }
  // The remembered refusal of key (cuDNN's statuses), or null.
  const std::string* refusal(const Key& key) const {
    const auto it = refusals_.find(key);
    return it == refusals_.end() ? nullptr : &it->second;
  }
  void clear() { plans_.clear(); }

 private:
  std::map<Key, std::unique_ptr<Plan>> plans_;
  std::map<Key, std::string> refusals_;
};

// A PlanCache with the handle its plans borrow, and the plan of the last prepared key.
template <class Key, class Plan>
class CudnnPlanCache {
 public:
  CudnnPlanCache() = default;
  CudnnPlanCache(const CudnnPlanCache&) = delete;
  CudnnPlanCache& operator=(const CudnnPlanCache&) = delete;
  ~CudnnPlanCache() {
    cache_.clear();  // the plans borrow the handle
    if (handle_) cudnnDestroy(handle_);
  }

  // Finds or builds (build(handle), a std::unique_ptr<Plan>, which throws Unsupported with
  // cuDNN's statuses) the plan of key and makes it the current one; rethrows a remembered refusal.
  template <class Build>
  const Plan& prepare(const Key& key, Build build) {
    current_ = nullptr;
    if (const std::string* why = cache_.refusal(key)) throw Unsupported(*why);
    if (!handle_) NB_CUDNN_CHECK(cudnnCreate(&handle_));
    current_ = &cache_.get(key, [&] { return build(handle_); });
    return *current_;
  }

  const Plan* find(const Key& key) const { return cache_.find(key); }
  const std::string* refusal(const Key& key) const { return cache_.refusal(key); }
  const Plan& current() const {
    if (!current_) throw Unsupported("the cuDNN plan was not prepared");
    return *current_;
  }
  // Where a variant's own workspace starts after a plan's: 256-byte aligned.
  static std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

 private:
  cudnnHandle_t handle_ = nullptr;
  PlanCache<Key, Plan> cache_;
  const Plan* current_ = nullptr;
};

}  // namespace nb::cudnn_backend
