#include "harness/candidate/child_process.hpp"

#include <fcntl.h>
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

[[noreturn]] void exec_in_child(const std::vector<std::string>& argv, int log_fd,
                                const std::vector<std::string>& environment) {
  setpgid(0, 0);  // its own group: a timeout kills everything it started
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  for (const auto& kv : environment) {
    const auto eq = kv.find('=');
    if (eq != std::string::npos) setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  dprintf(STDERR_FILENO, "cannot run %s: %s\n", args[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

ChildEnd run_child(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s,
                   const std::vector<std::string>& environment) {
  if (argv.empty()) throw UsageError("run_child: no program");
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw UsageError(log_path + ": cannot write the child's log: " + std::strerror(errno));
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    throw UsageError(std::string("cannot start a child process: ") + std::strerror(errno));
  }
  if (pid == 0) exec_in_child(argv, log_fd, environment);
  close(log_fd);
  setpgid(pid, pid);  // also from this side, so the kill below never races the child's own call
  ChildEnd end;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw UsageError(std::string("waitpid: ") + std::strerror(errno));
    if (timeout_s > 0 && elapsed() > timeout_s) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      end.how = ChildEnd::How::timed_out;
      end.seconds = elapsed();
      return end;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  end.seconds = elapsed();
  if (WIFSIGNALED(status)) {
    end.how = ChildEnd::How::signaled;
    end.code = WTERMSIG(status);
  } else {
    end.code = WEXITSTATUS(status);
  }
  return end;
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
