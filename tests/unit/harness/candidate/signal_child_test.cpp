// signal_child delivers a signal once: through the child's process group, not through the group and
// then its pid as well. A normbench child takes a second SIGINT or SIGTERM as "quit at once" and
// ends without its partial report (RunFaults.SigintWritesAPartialReportAndExitsOneThirty failed so
// on an H200 host). The child here is this test binary again, counting a real-time signal, which
// queues once a delivery where SIGINT's would merge.
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "child_wait.hpp"
#include "harness/candidate/child_process.hpp"
#include "temp_folder.hpp"

namespace nb {
namespace {

constexpr const char* kCountInto = "NORMBENCH_TEST_COUNT_SIGNALS_INTO";

bool wait_for_file(const std::string& path, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The child of the test below (skipped when run by itself): SIGRTMIN blocked, it says it is ready,
// waits for the parent's word that the signal went out, and writes how many arrived.
TEST(SignalChild, CountingChild) {
  const char* into = std::getenv(kCountInto);
  if (into == nullptr) GTEST_SKIP() << "the child process of SignalChild.ReachesTheChildOnce";
  sigset_t rt;
  sigemptyset(&rt);
  sigaddset(&rt, SIGRTMIN);
  ASSERT_EQ(sigprocmask(SIG_BLOCK, &rt, nullptr), 0);
  const std::string count_file = into;
  std::ofstream(count_file + ".ready") << "ready\n";
  ASSERT_TRUE(wait_for_file(count_file + ".sent", std::chrono::seconds(60)));
  int count = 0;
  const timespec no_wait{0, 0};
  while (sigtimedwait(&rt, nullptr, &no_wait) == SIGRTMIN) ++count;
  std::ofstream(count_file) << count << "\n";
}

TEST(SignalChild, ReachesTheChildOnce) {
  test::TempFolder dir;
  const std::string count_file = dir.file("count");
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const StartedChild child = start_child({self, "--gtest_filter=SignalChild.CountingChild"}, dir.file("child.log"),
                                         {std::string(kCountInto) + "=" + count_file});
  ASSERT_TRUE(wait_for_file(count_file + ".ready", std::chrono::seconds(60)));
  signal_child(child, SIGRTMIN);
  std::ofstream(count_file + ".sent") << "sent\n";
  const std::optional<ChildEnd> end = test::wait_for_end(child, std::chrono::seconds(60));
  ASSERT_TRUE(end.has_value()) << "the counting child did not end within 60 s";
  EXPECT_EQ(end->how, ChildEnd::How::exited);
  EXPECT_EQ(end->code, 0);
  std::ifstream in(count_file);
  int count = -1;
  in >> count;
  EXPECT_EQ(count, 1) << "signals the child received";
}

}  // namespace
}  // namespace nb
