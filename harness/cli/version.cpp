#include "harness/cli/version.hpp"

#include "normbench_build_commit.hpp"  // generated at build time (cmake/WriteBuildCommit.cmake)

#ifndef NORMBENCH_VERSION
#define NORMBENCH_VERSION "0"
#endif

namespace nb {

std::string version_text() {
  return std::string("normbench ") + NORMBENCH_VERSION + "\ncommit " + NORMBENCH_BUILD_COMMIT +
         (NORMBENCH_BUILD_DIRTY ? " (built with uncommitted changes)" : "") + "\n";
}

}  // namespace nb
