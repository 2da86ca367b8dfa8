#include "harness/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace nb {
namespace {

// One parallel_for call: its chunks, claimed one at a time by whoever comes (the caller first).
struct Job {
  const std::function<void(std::int64_t, std::int64_t)>* body = nullptr;
  std::int64_t n = 0, chunk = 0, chunks = 0;
  std::atomic<std::int64_t> next{0};
  std::vector<std::exception_ptr> errors;  // per chunk
  std::mutex mutex;
  std::condition_variable finished;
  std::int64_t done = 0;  // under mutex

  // Runs chunks until none is left unclaimed.
  void work() {
    for (std::int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {
      const std::int64_t begin = c * chunk, end = std::min(n, begin + chunk);
      try {
        (*body)(begin, end);
      } catch (...) {
        errors[std::size_t(c)] = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (++done == chunks) finished.notify_all();
    }
  }
  bool claimed() const { return next.load() >= chunks; }
};

// Threads kept for the process: a parallel_for of a few milliseconds used to start and join up to
// one thread per core each call (~20 us each), which the quick suite's audits, a dozen calls a
// trial over thousands of trials, paid in seconds. The caller works on its own job too, so a
// parallel_for inside another's body (or from any thread) always finishes.
class Pool {
 public:
  explicit Pool(int helpers) {
    for (int t = 0; t < helpers; ++t) threads_.emplace_back([this] { serve(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void run(const std::shared_ptr<Job>& job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(job);
    }
    wake_.notify_all();
    job->work();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), job), jobs_.end());
    }
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done == job->chunks; });
  }

 private:
  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      std::shared_ptr<Job> job = jobs_.front();
      if (job->claimed()) {  // its last chunks are being run: let the next job come forward
        jobs_.pop_front();
        continue;
      }
      lock.unlock();
      job->work();
      lock.lock();
    }
  }

  std::vector<std::thread> threads_;
  std::deque<std::shared_ptr<Job>> jobs_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

Pool& pool() {
  static Pool p(worker_threads() - 1);
  return p;
}

}  // namespace

int worker_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void parallel_for(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body,
                  std::int64_t min_chunk) {
  if (n <= 0) return;
  const std::int64_t parts = std::min<std::int64_t>(worker_threads(), (n + min_chunk - 1) / min_chunk);
  if (parts <= 1) {
    body(0, n);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->n = n;
  job->chunk = (n + parts - 1) / parts;
  job->chunks = (n + job->chunk - 1) / job->chunk;
  job->errors.resize(std::size_t(job->chunks));
  pool().run(job);
  for (auto& e : job->errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace nb
