#include "harness/candidate/candidate_library.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "harness/errors.hpp"

namespace nb {
namespace {

template <class F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

CandidateLibrary CandidateLibrary::open(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw UsageError(path + ": no such candidate library");
  // An absolute path: dlopen must not search the library path for a name like "cand.so".
  const std::string absolute = std::filesystem::absolute(path, error).string();
  void* handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw UsageError(path + ": cannot load the candidate library: " + dlerror());
  CandidateLibrary lib;
  lib.path_ = path;
  CandidateFunctions& f = lib.functions_;
  f.abi_version = symbol<int (*)()>(handle, "nb_candidate_abi_version");
  f.launch = symbol<decltype(f.launch)>(handle, "nb_candidate_launch");
  f.supports = symbol<decltype(f.supports)>(handle, "nb_candidate_supports");
  f.workspace_bytes = symbol<decltype(f.workspace_bytes)>(handle, "nb_candidate_workspace_bytes");
  f.prepare = symbol<decltype(f.prepare)>(handle, "nb_candidate_prepare");
  if (!f.abi_version)
    throw UsageError(path + ": does not export nb_candidate_abi_version (include normbench/candidate.h and define "
                            "it with NB_EXPORT, returning NB_CANDIDATE_ABI_VERSION)");
  const int version = f.abi_version();
  if (version != NB_CANDIDATE_ABI_VERSION)
    throw UsageError(path + ": built for candidate ABI version " + std::to_string(version) + ", this normbench speaks " +
                     std::to_string(NB_CANDIDATE_ABI_VERSION) + " (rebuild it against this normbench/candidate.h)");
  if (!f.launch)
    throw UsageError(path + ": does not export nb_candidate_launch (define it with NB_EXPORT; see docs/candidates.md)");
  return lib;
}

}  // namespace nb
