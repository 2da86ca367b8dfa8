#pragma once
// A candidate's shared library (include/normbench/candidate.h), opened with dlopen: its ABI
// version checked and its functions resolved. Whatever is wrong with it is a UsageError that
// names the file and the fault (cannot be loaded, no nb_candidate_launch, another ABI version).
#include <string>

#include "include/normbench/candidate.h"

namespace nb {

struct CandidateFunctions {
  int (*abi_version)() = nullptr;
  decltype(&nb_candidate_launch) launch = nullptr;
  decltype(&nb_candidate_supports) supports = nullptr;              // optional
  decltype(&nb_candidate_workspace_bytes) workspace_bytes = nullptr;  // optional
  decltype(&nb_candidate_prepare) prepare = nullptr;                // optional
};

class CandidateLibrary {
 public:
  // Loads `path` (never unloaded: CUDA modules registered by it must outlive every launch).
  static CandidateLibrary open(const std::string& path);

  const std::string& path() const { return path_; }
  const CandidateFunctions& functions() const { return functions_; }

 private:
  std::string path_;
  CandidateFunctions functions_;
};

}  // namespace nb
