#include "harness/run/plan_ahead.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <set>

namespace nb {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int default_plan_threads(unsigned hardware_threads, std::size_t tasks) {
  if (tasks == 0) return 0;
  const int cores = hardware_threads > 2 ? int(hardware_threads) - 2 : 1;
  return int(std::min<std::size_t>({std::size_t(std::min(cores, 16)), tasks}));
}

PlanAhead::ThreadSetup PlanAhead::on_device(int device) {
  // A new thread's current device is 0; its twins' handles and plans belong to the run's device.
  return [device] {
    if (cudaSetDevice(device) == cudaSuccess) return true;
    cudaGetLastError();
    return false;
  };
}

PlanAhead::PlanAhead(std::vector<PlanAheadTask> tasks, PlanCacheSetting setting, int threads, ThreadSetup setup)
    : tasks_(std::move(tasks)), setting_(std::move(setting)), state_(tasks_.size(), State::queued) {
  for (std::size_t i = 0; i < tasks_.size(); ++i) index_.emplace(std::pair{tasks_[i].problem->id(), tasks_[i].variant_name}, i);
  stats_.tasks = int(tasks_.size());
  if (tasks_.empty() || threads < 1) return;
  try {
    std::set<UsesPlanCache*> opened;
    for (const PlanAheadTask& t : tasks_)
      if (opened.insert(t.variant).second) t.variant->open_library();
  } catch (...) {  // no library here: every task is left to prepare(), which reports why
    return;
  }
  stats_.threads = threads;
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this, setup] { work(setup); });
}

PlanAhead::~PlanAhead() { finish(); }

void PlanAhead::work(const ThreadSetup& setup) {
  if (!setup()) return;  // the tasks stay queued: the validation takes them back and builds them itself
  std::map<const UsesPlanCache*, std::unique_ptr<UsesPlanCache>> twins;  // one per variant, this thread's
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    while (next_ < tasks_.size() && state_[next_] != State::queued) ++next_;
    if (next_ == tasks_.size()) break;
    const std::size_t i = next_++;
    state_[i] = State::running;
    ++running_;
    lock.unlock();
    const auto started = std::chrono::steady_clock::now();
    bool planned = false;
    try {
      std::unique_ptr<UsesPlanCache>& twin = twins[tasks_[i].variant];
      if (!twin) {
        twin = tasks_[i].variant->planning_twin();
        twin->use_plan_cache(setting_);
      }
      twin->plan_only(*tasks_[i].problem);
      twin->take_plan_events();  // the validation's prepare() records its own (a load)
      planned = true;
    } catch (...) {  // a refusal or an error: prepare() meets it again and reports it
    }
    const double busy = seconds_since(started);
    lock.lock();
    state_[i] = State::done;
    --running_;
    ++completed_;
    stats_.busy_s += busy;
    ++(planned ? stats_.planned : stats_.failed);
    stats_.wall_s = seconds_since(start_);
    done_.notify_all();
  }
  lock.unlock();
  twins.clear();  // their handles are destroyed by the thread that made them
}

void PlanAhead::wait(const std::string& problem_id, const std::string& variant_name) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto it = index_.find({problem_id, variant_name});
  if (it == index_.end()) return;
  State& state = state_[it->second];
  if (state == State::queued) {
    state = State::taken_back;
    ++stats_.taken_back;
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  done_.wait(lock, [&state] { return state != State::running; });
  stats_.waited_s += seconds_since(started);
}

bool PlanAhead::ready(const std::string& problem_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (threads_.empty()) return true;  // nothing is built ahead: the validation keeps its order
  for (auto it = index_.lower_bound({problem_id, ""}); it != index_.end() && it->first.first == problem_id; ++it)
    if (state_[it->second] == State::queued || state_[it->second] == State::running) return false;
  return true;
}

bool PlanAhead::wait_for_any() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (running_ == 0) return false;
  const auto started = std::chrono::steady_clock::now();
  const std::size_t seen = completed_;
  done_.wait(lock, [&] { return completed_ != seen; });
  stats_.waited_s += seconds_since(started);
  return true;
}

PlanAheadStats PlanAhead::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace nb
