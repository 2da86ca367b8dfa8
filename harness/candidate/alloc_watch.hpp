#pragma once
// Watches a candidate's launch for device allocations through the interposer that the worker
// process is started with (apps/alloc_intercept.cpp, LD_PRELOAD): armed around each launch, it
// counts cudaMalloc, cudaMallocAsync, cudaMallocManaged, cuMemAlloc and their kin. Without the
// interposer (a plain in-process run) it reports itself unavailable and sees nothing.
#include <string>

namespace nb {

class AllocWatch {
 public:
  static bool available();
  static void arm();
  static void disarm();
  static long calls();              // allocation calls made while armed, over the process
  static std::string first_call();  // the first of them, "" when none
};

// The interposer's file name, and where the worker looks for it: beside the normbench binary,
// or in ../lib of it (an installed tree). "" when not found.
inline constexpr const char* kAllocInterceptLibrary = "libnormbench_alloc_intercept.so";
std::string find_alloc_intercept_library();

}  // namespace nb
