#pragma once
// normbench eval (a candidate kernel from outside the repository, each case in a contained worker
// process, side by side with the built-in variants) and its hidden worker, eval-worker.
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "harness/run/case_selection.hpp"
#include "harness/run/runner.hpp"

namespace nb {

struct EvalCommand {
  std::string candidate;                // CANDIDATE.cu or CANDIDATE.so
  std::string op;
  Selection selection;                  // suite or problem ids; variants narrow the built-ins
  std::string name;                     // the candidate's variant name (default: the file's stem)
  std::vector<std::string> nvcc_flags;
  double case_timeout_s = 300;          // the watchdog on each case's worker
  bool builtins = true;                 // run the op's own variants beside it
  RunOptions options;
  std::string out_root = "reports";
  std::vector<std::string> benchmark_args;
  std::string program = "normbench";
};
int eval_command(const Registry& registry, const EvalCommand& command, std::ostream& out);

// One problem of one candidate, run by a child process of `eval` (or --probe: load and check the
// library only). Sends its messages (harness/candidate/worker_protocol.hpp) on `result_fd`.
struct EvalWorkerCommand {
  bool probe = false;
  std::string library, source, sha256, compile_command, name, op, problem;
  int result_fd = 3;
  RunOptions options;
};
int eval_worker_command(const Registry& registry, const EvalWorkerCommand& command);

}  // namespace nb
