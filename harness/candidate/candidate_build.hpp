#pragma once
// From what the user gives to a loadable library: a .cu is compiled with the CUDA toolkit's nvcc
// (shared, position independent, the shared CUDA runtime, for the GPU's architecture), a .so is
// taken as it is. The exact nvcc command and the source's SHA-256 go into the report. A missing
// file, another suffix or a compile error (with nvcc's own message) is a UsageError.
#include <string>
#include <vector>

#include "harness/variant.hpp"

namespace nb {

struct CandidateBuildRequest {
  std::string source;                   // CANDIDATE.cu or CANDIDATE.so
  std::vector<std::string> nvcc_flags;  // --nvcc-flag, appended
  std::string arch;                     // "sm_90"
  std::string work_dir;                 // where the library and nvcc's log go
};

// ExternalSource::library is the library to load.
ExternalSource build_candidate(const CandidateBuildRequest& request);

// The nvcc command for a .cu (what build_candidate runs).
std::vector<std::string> nvcc_command(const CandidateBuildRequest& request, const std::string& library);

// $NVCC, else the toolkit's nvcc that normbench was built with, else nvcc on the PATH.
std::string nvcc_path();
// The folder holding normbench/candidate.h: an installed tree's include/ beside bin/, or the
// source tree's include/.
std::string candidate_include_dir();

}  // namespace nb
