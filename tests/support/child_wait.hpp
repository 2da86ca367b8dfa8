#pragma once
// Waiting in a test for a child started by start_child: polled every 10 ms until it ends or the
// limit passes, when it is killed (its whole group) and nullopt returned.
#include <signal.h>

#include <chrono>
#include <optional>
#include <thread>

#include "harness/candidate/child_process.hpp"

namespace nb::test {

inline std::optional<ChildEnd> wait_for_end(const StartedChild& child, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (std::optional<ChildEnd> ended = poll_child(child)) return ended;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  signal_child(child, SIGKILL);
  return std::nullopt;
}

}  // namespace nb::test
