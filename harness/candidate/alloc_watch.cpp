#include "harness/candidate/alloc_watch.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>

namespace nb {
namespace {

using ArmFn = void (*)(int);
using CallsFn = long (*)(const char**);

ArmFn arm_fn() {
  static ArmFn fn = reinterpret_cast<ArmFn>(dlsym(RTLD_DEFAULT, "nb_alloc_watch_arm"));
  return fn;
}
CallsFn calls_fn() {
  static CallsFn fn = reinterpret_cast<CallsFn>(dlsym(RTLD_DEFAULT, "nb_alloc_watch_calls"));
  return fn;
}

}  // namespace

bool AllocWatch::available() { return arm_fn() && calls_fn(); }
void AllocWatch::arm() {
  if (arm_fn()) arm_fn()(1);
}
void AllocWatch::disarm() {
  if (arm_fn()) arm_fn()(0);
}
long AllocWatch::calls() { return calls_fn() ? calls_fn()(nullptr) : 0; }
std::string AllocWatch::first_call() {
  const char* first = nullptr;
  if (calls_fn()) calls_fn()(&first);
  return first ? first : "";
}

std::string find_alloc_intercept_library() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return "";
  for (const fs::path& dir : {exe.parent_path(), exe.parent_path().parent_path() / "lib"}) {
    const fs::path candidate = dir / kAllocInterceptLibrary;
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  }
  return "";
}

}  // namespace nb
