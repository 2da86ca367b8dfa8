#pragma once
// Progress lines on stderr for long runs: which case, how many of how many, elapsed time.
#include <chrono>
#include <string>

namespace nb {

class Progress {
 public:
  explicit Progress(bool enabled = true);
  void set_total(int total) { total_ = total; }
  void begin(int index, const std::string& what);  // "[index/total] what"
  void note(const std::string& detail);            // a sub-step of the current item
  double elapsed_s() const;

 private:
  bool enabled_;
  int total_ = 0, index_ = 0;
  std::string what_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace nb
