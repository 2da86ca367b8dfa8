#pragma once
// The run's library plans built ahead, on host threads, while the validation works through the
// problems in order: a cuDNN plan whose engine compiles its kernel takes 0.3-1 s to finalize, and
// the quick suite has about 250 of them, so built one problem at a time they were most of its
// validation on a bare machine. Each task plans one (problem, variant) case with a planning twin
// of the variant (UsesPlanCache::planning_twin: its own cuDNN handle) into the plan cache; the
// validation's own prepare() then loads the plan. Before it prepares a case, the validation calls
// wait(): a task being built is waited for, one not yet started is taken back (prepare() builds it
// as before). Each variant's own handle is made on the validation's thread first, as cuDNN asks.
// A task that fails is only counted: prepare() meets the same refusal and reports it. Nothing
// here runs while anything is timed: the run finishes it before its timing phase.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/plan_cache/plan_cache_setting.hpp"
#include "harness/plan_cache/plan_events.hpp"
#include "harness/problem.hpp"
#include "harness/run/phase_times.hpp"

namespace nb {

struct PlanAheadTask {
  const Problem* problem = nullptr;         // the run's: outlives the PlanAhead
  UsesPlanCache* variant = nullptr;         // the run's variant; its twins do the work
  std::string variant_name;                 // with problem->id(), what wait() finds the task by
};

// The planning threads a run starts by default: the host's cores less two (the validation's own
// thread and the audit's), at least 1 and at most 16; none without tasks.
int default_plan_threads(unsigned hardware_threads, std::size_t tasks);

class PlanAhead {
 public:
  // What each thread does first: make the run's CUDA device its current one (true when it could;
  // a thread that could not plans nothing, and its tasks are taken back).
  using ThreadSetup = std::function<bool()>;
  static ThreadSetup on_device(int device);

  // Opens each task variant's library on this thread (open_library), then starts `threads`
  // threads (none when tasks is empty, threads < 1 or a library did not open), each after `setup`,
  // on the tasks in the order given (the validation's).
  PlanAhead(std::vector<PlanAheadTask> tasks, PlanCacheSetting setting, int threads, ThreadSetup setup);
  PlanAhead(const PlanAhead&) = delete;
  PlanAhead& operator=(const PlanAhead&) = delete;
  ~PlanAhead();  // finish()

  // Returns once the case's task is done, or at once when it has none or it had not started (it
  // is then never started).
  void wait(const std::string& problem_id, const std::string& variant_name);
  // Whether the problem's validation would not wait: each of its tasks built, failed or taken
  // back, or none at all (or no thread to build any: the validation keeps its order).
  bool ready(const std::string& problem_id);
  // Returns once a task being built is done (false at once when none is: nothing will change
  // unless the validation takes a task back). Its seconds count as waited.
  bool wait_for_any();
  // Starts no more tasks, waits for those running, joins the threads; the stats. Idempotent.
  PlanAheadStats finish();

 private:
  enum class State { queued, running, done, taken_back };
  void work(const ThreadSetup& setup);

  std::vector<PlanAheadTask> tasks_;
  PlanCacheSetting setting_;
  std::map<std::pair<std::string, std::string>, std::size_t> index_;  // (problem id, variant) -> task
  std::vector<State> state_;
  std::size_t next_ = 0;
  std::size_t running_ = 0, completed_ = 0;
  bool stopping_ = false;
  PlanAheadStats stats_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable done_;
  std::vector<std::thread> threads_;
};

}  // namespace nb
