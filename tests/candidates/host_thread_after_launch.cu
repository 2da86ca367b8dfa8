// Planted: launch returns at once, and a host thread enqueues the real kernel on the harness's
// stream about 50 us later: the events around the launch time nothing, and the work lands after
// the stop event. Caught by the timed-output check enqueued right behind the stop event.
#include <chrono>
#include <thread>

#include "planted_rmsnorm.cuh"

static std::thread late;

static void join_late() {
  if (late.joinable()) late.join();
}

static struct JoinAtExit {
  ~JoinAtExit() { join_late(); }
} join_at_exit;

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  join_late();
  const planted::RowsArgs args = planted::args_of(p, t);
  const cudaStream_t stream = cudaStream_t(s);
  late = std::thread([args, stream] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (std::chrono::steady_clock::now() < until) {
    }
    planted::launch_rows(args, stream, nullptr);
  });
  return 0;
}
