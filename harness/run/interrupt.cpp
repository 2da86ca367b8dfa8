#include "harness/run/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace nb {
namespace {

std::atomic<int> g_signal{0};
constexpr int kMaxGroups = 64;
std::atomic<int> g_groups[kMaxGroups];
std::atomic<int> g_group_count{0};

extern "C" void on_interrupt(int signal) {
  int none = 0;
  if (!g_signal.compare_exchange_strong(none, signal)) {  // the second signal: now
    for (int i = 0; i < g_group_count.load(); ++i) kill(-g_groups[i].load(), signal);
    _exit(130);
  }
  static const char message[] = "\nnormbench: interrupted: finishing the current sample and writing a partial "
                                "report (again to quit at once)\n";
  if (write(STDERR_FILENO, message, sizeof message - 1) < 0) {
  }
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void forward_second_signal_to(const std::vector<int>& process_groups) {
  int n = 0;
  for (int g : process_groups)
    if (n < kMaxGroups && g > 0) g_groups[n++].store(g);
  g_group_count.store(n);
}

bool interrupt_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }
int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }
void request_interrupt(int signal) { g_signal.store(signal); }
void clear_interrupt() { g_signal.store(0); }

}  // namespace nb
