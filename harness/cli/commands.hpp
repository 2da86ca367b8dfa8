#pragma once
// The subcommands behind the CLI parser, each a plain function returning an exit status.
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "harness/run/case_selection.hpp"
#include "harness/run/runner.hpp"

namespace nb {

// list ops|variants|suites|problems, optionally narrowed to ops and a suite.
int list_command(const Registry& registry, const std::string& what, const std::vector<std::string>& ops,
                 const std::string& suite, std::ostream& out);

// list tensors: the op's tensors in declared order (the order a candidate receives them), with
// shapes (of `problem`, or of the op's first quick problem) and roles.
int list_tensors_command(const Registry& registry, const std::vector<std::string>& ops, const std::string& problem,
                         std::ostream& out);

struct RunCommand {
  Selection selection;
  RunOptions options;
  std::string out_root = "reports";
  std::vector<std::string> benchmark_args;  // --benchmark_* flags, passed to Google Benchmark
  std::string program = "normbench";
  std::string run_id;   // the report folder's name (default: <UTC time>-<commit>); set by run --devices
  std::string devices;  // "all" or "0,2": one worker process per GPU (harness/cli/devices_run.hpp)
  std::vector<std::string> argv;  // the command line as given, for the workers of --devices
};
// SIGINT/SIGTERM end the run at the next sample with a partial report (exit 130); a lost CUDA
// context ends it with a partial report marked aborted (exit 3).
int run_command(const Registry& registry, const RunCommand& command, std::ostream& out);

// The copy ceiling, the read / write / read2_write1 pattern ceilings and the theoretical peak, as a
// table or (json) a JSON document.
int ceilings_command(int device, bool json, std::ostream& out);

}  // namespace nb
