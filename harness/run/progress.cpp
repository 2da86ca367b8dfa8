#include "harness/run/progress.hpp"

#include <cstdio>

namespace nb {

Progress::Progress(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::begin(int index, const std::string& what) {
  index_ = index;
  what_ = what;
  note("");
}

void Progress::note(const std::string& detail) {
  if (!enabled_) return;
  std::fprintf(stderr, "[%d/%d %7.1fs] %s%s%s\n", index_, total_, elapsed_s(), what_.c_str(),
               detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stderr);
}

}  // namespace nb
