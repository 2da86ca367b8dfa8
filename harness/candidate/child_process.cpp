#include "harness/candidate/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/errors.hpp"

namespace nb {
namespace {

// This process's environment with `overrides` (NAME=VALUE) added or replacing, built before
// fork: the parent may have other threads (CUDA's), so the child calls nothing that allocates.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || kv.compare(0, o.find('=') + 1, o, 0, o.find('=') + 1) == 0;
    if (!replaced) env.push_back(kv);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// Puts the channel's write end at kChildChannelFd, open across exec.
void place_channel(int write_fd) {
  if (write_fd < 0) return;
  if (write_fd == kChildChannelFd) fcntl(write_fd, F_SETFD, 0);
  else dup2(write_fd, kChildChannelFd);
}

[[noreturn]] void exec_in_child(char* const* argv, char* const* envp, int log_fd, int channel_write_fd) {
  setpgid(0, 0);  // its own group: a timeout kills everything it started
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  place_channel(channel_write_fd);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  execvpe(argv[0], argv, envp);
  const char message[] = "cannot start the program: exec failed\n";
  if (write(STDERR_FILENO, message, sizeof message - 1) < 0) _exit(127);
  _exit(127);
}

}  // namespace

StartedChild start_child(const std::vector<std::string>& argv, const std::string& log_path,
                         const std::vector<std::string>& environment, int* channel_fd) {
  if (argv.empty()) throw UsageError("run_child: no program");
  std::vector<std::string> args = argv, env = environment_with(environment);
  const std::vector<char*> arg_pointers = pointers(args), env_pointers = pointers(env);
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw UsageError(log_path + ": cannot write the child's log: " + std::strerror(errno));
  int pipe_fds[2] = {-1, -1};
  if (channel_fd && pipe2(pipe_fds, O_CLOEXEC) != 0) {
    close(log_fd);
    throw UsageError(std::string("cannot open a channel to a child process: ") + std::strerror(errno));
  }
  StartedChild child;
  child.start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    for (int fd : pipe_fds)
      if (fd >= 0) close(fd);
    throw UsageError(std::string("cannot start a child process: ") + std::strerror(errno));
  }
  if (pid == 0) exec_in_child(arg_pointers.data(), env_pointers.data(), log_fd, pipe_fds[1]);
  close(log_fd);
  if (channel_fd) {
    close(pipe_fds[1]);
    fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
    *channel_fd = pipe_fds[0];
  }
  setpgid(pid, pid);  // also from this side, so a kill never races the child's own call
  child.pid = pid;
  return child;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ChildEnd end_of(int status, double seconds) {
  ChildEnd end;
  end.seconds = seconds;
  if (WIFSIGNALED(status)) {
    end.how = ChildEnd::How::signaled;
    end.code = WTERMSIG(status);
  } else {
    end.code = WEXITSTATUS(status);
  }
  return end;
}

}  // namespace

std::optional<ChildEnd> poll_child(const StartedChild& child) {
  int status = 0;
  pid_t done = waitpid(child.pid, &status, WNOHANG);
  while (done < 0 && errno == EINTR) done = waitpid(child.pid, &status, WNOHANG);
  if (done < 0) throw UsageError(std::string("waitpid: ") + std::strerror(errno));
  if (done == 0) return std::nullopt;
  return end_of(status, seconds_since(child.start));
}

void signal_child(const StartedChild& child, int signal) {
  if (child.pid <= 0) return;
  if (kill(-child.pid, signal) != 0) kill(child.pid, signal);
}

namespace {

// The lines of a child's channel as they arrive (a line is complete at its newline; what is left
// when the pipe closes is a line too).
class ChannelReader {
 public:
  ChannelReader(int fd, std::chrono::steady_clock::time_point start, std::vector<ChannelLine>* lines)
      : fd_(fd), start_(start), lines_(lines) {}
  ~ChannelReader() {
    if (fd_ >= 0) close(fd_);
  }
  ChannelReader(const ChannelReader&) = delete;
  ChannelReader& operator=(const ChannelReader&) = delete;

  // Waits up to `ms` for something to read (the lines get the time they arrive, not the next poll's).
  void wait(int ms) const {
    if (fd_ < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return;
    }
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, ms) > 0 && (p.revents & (POLLHUP | POLLERR)) && !(p.revents & POLLIN))
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));  // closed: do not spin
  }

  // Reads what is there now (never blocks).
  void drain() {
    if (fd_ < 0) return;
    char buffer[65536];
    for (;;) {
      const ssize_t n = read(fd_, buffer, sizeof buffer);
      if (n > 0) {
        take(buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) finish();  // every writer closed it
      return;
    }
  }

 private:
  void take(const char* data, std::size_t n) {
    const double at = seconds_since(start_);
    for (std::size_t i = 0; i < n; ++i) {
      if (data[i] != '\n') {
        partial_ += data[i];
        continue;
      }
      lines_->push_back({partial_, at});
      partial_.clear();
    }
  }
  void finish() {
    if (!partial_.empty()) lines_->push_back({partial_, seconds_since(start_)});
    partial_.clear();
    close(fd_);
    fd_ = -1;
  }

  int fd_;
  std::chrono::steady_clock::time_point start_;
  std::vector<ChannelLine>* lines_;
  std::string partial_;
};

}  // namespace

ChildEnd run_child(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s,
                   const std::vector<std::string>& environment, std::vector<ChannelLine>* channel) {
  int channel_fd = -1;
  const StartedChild child = start_child(argv, log_path, environment, channel ? &channel_fd : nullptr);
  ChannelReader reader(channel_fd, child.start, channel);
  for (;;) {
    reader.drain();
    if (auto end = poll_child(child)) {
      reader.drain();  // what it wrote before it ended (a grandchild may hold the pipe: no waiting)
      return *end;
    }
    if (timeout_s > 0 && seconds_since(child.start) > timeout_s) {
      signal_child(child, SIGKILL);
      int status = 0;
      while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
      }
      reader.drain();
      ChildEnd end;
      end.how = ChildEnd::How::timed_out;
      end.seconds = seconds_since(child.start);
      return end;
    }
    reader.wait(10);
  }
}

std::string describe_signal(int signal) {
  const char* name = "";
  switch (signal) {
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGABRT: name = "SIGABRT"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGKILL: name = "SIGKILL"; break;
    case SIGTERM: name = "SIGTERM"; break;
    default: return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  std::string what = strsignal(signal);
  for (auto& ch : what) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (signal == SIGKILL) what += "; out of memory?";
  return std::string(name) + " (" + what + ")";
}

std::string read_tail(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.size() <= max_bytes) return s;
  s = s.substr(s.size() - max_bytes);
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-./=,:+@%") == std::string::npos;
    std::string q = plain ? a : "'";
    if (!plain) {
      for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

}  // namespace nb
