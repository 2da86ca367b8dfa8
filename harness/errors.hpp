#pragma once
// The two kinds of failure the CLI tells apart: a bad request (exit 2) and a broken
// device or library (exit 3). A failed verdict is not an error; it is a result (exit 1).
#include <stdexcept>
#include <string>

namespace nb {

// A bad shape, parameter, file or argument: the user can fix it.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// CUDA, cuDNN, cuBLAS or the driver refused: the message names the call and file:line.
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitVerdictFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitDevice = 3;
inline constexpr int kExitInterrupted = 130;  // SIGINT or SIGTERM: the partial report was written

}  // namespace nb

namespace nb {

// Thrown by a variant's prepare() or launch() when it cannot run a problem after all (a library
// refused it). The harness records the case as skipped with this message, the library's status.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nb
