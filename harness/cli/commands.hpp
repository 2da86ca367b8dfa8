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
};
int run_command(const Registry& registry, const RunCommand& command, std::ostream& out);

// The copy ceiling, the read / write / read2_write1 pattern ceilings and the theoretical peak, as a
// table or (json) a JSON document.
int ceilings_command(int device, bool json, std::ostream& out);

}  // namespace nb
