#pragma once
// Running a program in a child process with a time limit: its output goes to a log file, and a
// child still running at the limit is killed (its whole process group) with SIGKILL. How it
// ended (exit status, signal, time limit) is what the caller classifies.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace nb {

struct ChildEnd {
  enum class How { exited, signaled, timed_out };
  How how = How::exited;
  int code = 0;    // exit status (exited) or signal number (signaled)
  double seconds = 0;
};

// A line the child wrote to its channel, and when the parent read it (seconds since the start).
struct ChannelLine {
  std::string text;
  double at_s = 0;
};

// Where the child finds the write end of its channel (a pipe), when it is given one.
inline constexpr int kChildChannelFd = 3;

// argv[0] is looked up in PATH when it has no '/'. `environment` adds or replaces NAME=VALUE
// pairs. With `channel`, the child gets a pipe at kChildChannelFd and every line it writes there
// is collected, timed by the parent's clock as it arrives. Throws UsageError when the program
// cannot be started.
ChildEnd run_child(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s,
                   const std::vector<std::string>& environment = {}, std::vector<ChannelLine>* channel = nullptr);

// A child started and not yet reaped, for running several side by side (run --devices). Its own
// process group, output to the log file, stdin from /dev/null, as for run_child.
struct StartedChild {
  int pid = -1;
  std::chrono::steady_clock::time_point start;
};
// With `channel_fd`, the child's channel is set up and its read end (non-blocking) stored there.
StartedChild start_child(const std::vector<std::string>& argv, const std::string& log_path,
                         const std::vector<std::string>& environment = {}, int* channel_fd = nullptr);
// How it ended, or nullopt while it still runs (never blocks).
std::optional<ChildEnd> poll_child(const StartedChild& child);
// Sends `signal` to the child's whole process group, once: to the child alone only where its
// group is gone (a second SIGINT or SIGTERM ends a normbench child at once, without its partial
// report).
void signal_child(const StartedChild& child, int signal);

// "SIGSEGV (segmentation fault)".
std::string describe_signal(int signal);

// The last `max_bytes` of a file ("" when missing), starting at a line boundary.
std::string read_tail(const std::string& path, std::size_t max_bytes = 4000);

// The command as a shell would read it, each argument quoted where it needs to be.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace nb
