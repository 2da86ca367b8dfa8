#pragma once
// The cuDNN plans of one baseline variant: a handle, created on first use, and one plan per key
// (shape, precision, ...) built in prepare(), before any allocation for the problem. A key cuDNN
// refuses is remembered with its statuses and refused again at once: planning again would only
// repeat it. PlanCache is the memory alone (no cuDNN call in it); CudnnPlanCache adds the handle
// and the plan cache on disk, which plan_graph (graph_plan.hpp) reads and writes for each graph
// the plans are built from, and keeps the PlanEvents of those graphs for the runner.
#include <cudnn.h>

#include <cstddef>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "baselines/cudnn/graph_plan.hpp"
#include "baselines/cudnn/plan_serialization.hpp"
#include "harness/errors.hpp"
#include "harness/library_check.hpp"
#include "harness/plan_cache/plan_cache_setting.hpp"
#include "harness/plan_cache/plan_events.hpp"
#include "harness/plan_cache/plan_store.hpp"

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

// A PlanCache with the handle its plans borrow, the plan cache folder its graphs' plans are kept
// in (the environment's until use_plan_cache), and the plan of the last prepared key.
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

  // Where later builds find and keep their graphs' plans; the plans in memory stay.
  void use_plan_cache(const PlanCacheSetting& setting) {
    if (setting == setting_) return;
    setting_ = setting;
    store_.reset();
  }
  // The graphs planned (built, loaded or refused) since the last call.
  std::vector<PlanEvent> take_events() { return std::exchange(events_, {}); }

  // Finds or builds (build(handle, const PlanCacheUse&), a std::unique_ptr<Plan>, which throws
  // Unsupported with cuDNN's statuses and passes the PlanCacheUse to plan_graph) the plan of key and
  // makes it the current one; rethrows a remembered refusal.
  template <class Build>
  const Plan& prepare(const Key& key, Build build) {
    current_ = nullptr;
    if (const std::string* why = cache_.refusal(key)) throw Unsupported(*why);
    open();
    current_ = &cache_.get(key, [&] { return build(handle_, plan_cache_use()); });
    return *current_;
  }

  // Makes the handle now, if there is none (prepare() would make it on first use).
  void open() {
    if (!handle_) NB_CUDNN_CHECK(cudnnCreate(&handle_));
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
  PlanCacheUse plan_cache_use() {
    if (setting_.enabled() && !store_) store_.emplace(setting_.folder, std::cerr);
    if (store_ && identity_.empty()) identity_ = plan_identity();
    return {store_ ? &*store_ : nullptr, identity_, &events_};
  }

  cudnnHandle_t handle_ = nullptr;
  PlanCache<Key, Plan> cache_;
  const Plan* current_ = nullptr;
  PlanCacheSetting setting_ = plan_cache_from_environment();
  std::optional<PlanStore> store_;
  std::string identity_;
  std::vector<PlanEvent> events_;
};

}  // namespace nb::cudnn_backend
