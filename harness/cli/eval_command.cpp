// normbench eval: a candidate kernel from outside the repository, judged like a built-in variant.
// The candidate is compiled (or taken as a .so), probed in a child process, and then each of its
// cases runs in a worker process of its own under a watchdog; the built-in variants run here as
// in `normbench run`. The worker's outcome, or what its end says (a signal, a CUDA fault, the
// time limit), joins the same run record, summary table, report and exit status.
#include <cuda_runtime.h>
#include <stdlib.h>

#include <cstdlib>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "harness/candidate/alloc_watch.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/candidate/candidate_build.hpp"
#include "harness/candidate/child_process.hpp"
#include "harness/candidate/worker_protocol.hpp"
#include "harness/cli/eval_commands.hpp"
#include "harness/cli/benchmark_flags.hpp"
#include "harness/cli/summary_table.hpp"
#include "harness/errors.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/report/json/report_json.hpp"
#include "harness/report/report_writer.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;

// The candidate in the parent's run record: its name and source, never launched here.
class CandidateRecord final : public Variant {
 public:
  CandidateRecord(std::string name, ExternalSource source) : name_(std::move(name)), source_(std::move(source)) {}
  std::string name() const override { return name_; }
  std::string kind() const override { return "external"; }
  std::string idea() const override { return "candidate kernel from " + source_.source; }
  const ExternalSource* external() const override { return &source_; }
  void launch(const Problem&, const DeviceTensors&, void*, cudaStream_t) override {
    throw DeviceError("a candidate runs in its worker process only");
  }

 private:
  std::string name_;
  ExternalSource source_;
};

// "sm_90" for the device, or the architecture normbench was built for when there is no device.
std::string gpu_arch(int device) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
    return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + (prop.major == 9 ? "a" : "");
  cudaGetLastError();
#ifdef NORMBENCH_DEFAULT_CUDA_ARCH
  return std::string("sm_") + NORMBENCH_DEFAULT_CUDA_ARCH;
#else
  return "sm_90";
#endif
}

std::string make_work_dir() {
  std::string pattern = (fs::temp_directory_path() / "normbench-eval-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw UsageError("cannot create a folder under " + fs::temp_directory_path().string());
  return pattern;
}

std::string last_lines(const std::string& log) {
  const std::string tail = read_tail(log, 1500);
  return tail.empty() ? "" : "\n" + tail;
}

std::string self_exe() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string("normbench") : exe.string();
}

struct Worker {
  std::vector<std::string> argv;
  std::string log;
};

Worker worker_for(const EvalCommand& c, const ExternalSource& s, const std::string& name, const std::string& dir,
                  const std::string& tag) {
  Worker w;
  w.log = dir + "/" + tag + ".log";
  w.argv = {self_exe(), "eval-worker", "--library", s.library, "--source", s.source, "--sha256", s.sha256,
            "--name", name, "--op", c.op, "--result-fd", std::to_string(kChildChannelFd)};
  if (!s.compile_command.empty()) w.argv.insert(w.argv.end(), {"--compile-command", s.compile_command});
  const RunOptions& o = c.options;
  w.argv.insert(w.argv.end(), {"--trials", std::to_string(o.validation.trials), "--huge-trials",
                               std::to_string(o.validation.huge_problem_trials), "--slow-launch-ms",
                               std::to_string(o.validation.slow_launch_ms), "--min-time",
                               std::to_string(o.samples.min_time_s), "--max-samples",
                               std::to_string(o.samples.max_samples), "--device", std::to_string(o.device),
                               "--reference", o.validation.reference == ReferencePlace::host ? "host" : "device"});
  std::string dists;
  for (Distribution d : o.validation.distributions) dists += (dists.empty() ? "" : ",") + distribution_name(d);
  if (!dists.empty()) w.argv.insert(w.argv.end(), {"--distributions", dists});
  if (o.validate_only) w.argv.push_back("--validate-only");
  if (o.validation.strict) w.argv.push_back("--strict");
  if (o.placement == TensorPlacement::misaligned) w.argv.push_back("--misaligned");
  if (!o.record_launches) w.argv.push_back("--no-launches");
  return w;
}

std::vector<std::string> worker_environment() {
  const std::string intercept = find_alloc_intercept_library();
  if (intercept.empty()) {
    std::cerr << "normbench eval: " << kAllocInterceptLibrary << " not found beside normbench: allocations in launch "
              << "will go unseen\n";
    return {};
  }
  const char* existing = std::getenv("LD_PRELOAD");  // keep what a tool (a sanitizer) preloads
  return {"LD_PRELOAD=" + intercept + (existing && *existing ? std::string(":") + existing : std::string())};
}

// Loads the library in a child first: a missing symbol or another ABI version is a bad input
// (exit 2), and a library that crashes while loading never touches this process.
void probe_candidate(const EvalCommand& c, const ExternalSource& s, const std::string& dir) {
  Worker w = worker_for(c, s, "probe", dir, "probe");
  w.argv.push_back("--probe");
  std::vector<ChannelLine> lines;
  const ChildEnd end = run_child(w.argv, w.log, 120, {}, &lines);
  std::string probe, usage_error, fatal;
  for (const ChannelLine& line : lines) {
    const nlohmann::json j = nlohmann::json::parse(line.text, nullptr, false);
    if (!j.is_object()) continue;
    if (j.contains("probe") && j["probe"].is_string()) probe = j["probe"];
    if (j.contains("usage_error") && j["usage_error"].is_string()) usage_error = j["usage_error"];
    if (j.contains("fatal") && j["fatal"].is_string()) fatal = j["fatal"];
  }
  if (end.how == ChildEnd::How::exited && end.code == 0 && probe == "ok") return;
  if (!usage_error.empty()) throw UsageError(usage_error);
  std::string what = end.how == ChildEnd::How::timed_out  ? "timed out while loading"
                     : end.how == ChildEnd::How::signaled ? "crashed while loading: " + describe_signal(end.code)
                                                          : "failed to load (exit " + std::to_string(end.code) + ")";
  if (!fatal.empty()) what += ": " + fatal;
  throw UsageError(c.candidate + ": " + what + last_lines(w.log));
}

// The selected problems in order, each once, with the suites they came from.
std::vector<RunCase> problems_of(const Registry& registry, Selection selection) {
  selection.variants.clear();
  std::vector<RunCase> problems;
  std::set<std::string> seen;
  for (RunCase& c : select_cases(registry, selection))
    if (seen.insert(c.problem.id()).second) problems.push_back(std::move(c));
  return problems;
}


// Puts each candidate case right after the last built-in case of its problem.
void merge_candidate(RunRecord& record, std::vector<RunCase> cases, std::vector<CaseOutcome> outcomes) {
  for (std::size_t k = 0; k < cases.size(); ++k) {
    std::size_t at = record.cases.size();
    for (std::size_t i = 0; i < record.cases.size(); ++i)
      if (record.cases[i].problem.id() == cases[k].problem.id()) at = i + 1;
    record.cases.insert(record.cases.begin() + static_cast<std::ptrdiff_t>(at), cases[k]);
    record.outcomes.insert(record.outcomes.begin() + static_cast<std::ptrdiff_t>(at), outcomes[k]);
  }
}

}  // namespace

int eval_command(const Registry& registry, const EvalCommand& c, std::ostream& out) {
  registry.op(c.op);  // an unknown op is a usage error before anything else
  Selection selection = c.selection;
  selection.ops = {c.op};
  const std::vector<RunCase> problems = problems_of(registry, selection);
  std::vector<RunCase> builtins;
  if (c.builtins) builtins = select_cases(registry, selection);
  if (!(c.case_timeout_s > 0) || !std::isfinite(c.case_timeout_s))
    throw UsageError("--case-timeout must be a positive number of seconds");
  check_folder_writable(c.out_root, "the --out folder");  // before the candidate is built and run
  const std::string dir = make_work_dir();
  struct RemoveWhenDone {
    std::string path;
    ~RemoveWhenDone() {
      std::error_code error;
      fs::remove_all(path, error);
    }
  } remove_work_dir{dir};
  const std::string name = c.name.empty() ? fs::path(c.candidate).stem().string() : c.name;
  for (const RunCase& b : builtins)
    if (b.variant->name() == name) throw UsageError("--name " + name + " is a built-in variant's name; choose another");
  const ExternalSource source = build_candidate({c.candidate, c.nvcc_flags, gpu_arch(c.options.device), dir});
  probe_candidate(c, source, dir);
  if (!c.options.validate_only) initialise_benchmark(c.program, c.benchmark_args);

  RunRecord record = run_cases(builtins, c.options);
  CandidateRecord candidate(name, source);
  std::vector<RunCase> cases;
  std::vector<CaseOutcome> outcomes;
  const std::vector<std::string> environment = worker_environment();
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const RunCase& p = problems[k];
    Worker w = worker_for(c, source, name, dir, "case" + std::to_string(k));
    w.argv.insert(w.argv.end(), {"--problem", p.problem.id()});
    if (c.options.progress) std::cerr << "[candidate " << k + 1 << "/" << problems.size() << "] " << p.problem.id() << "\n";
    std::vector<ChannelLine> lines;
    const ChildEnd end = run_child(w.argv, w.log, c.case_timeout_s, environment, &lines);
    CaseOutcome o = outcome_from_worker(end, lines, c.case_timeout_s, read_tail(w.log, 1500), !c.options.validate_only);
    if (c.options.progress && o.containment != "completed") std::cerr << "  " << o.reason << "\n";
    cases.push_back({p.op, &candidate, p.problem, p.suites});
    outcomes.push_back(std::move(o));
  }
  merge_candidate(record, std::move(cases), std::move(outcomes));
  record.provenance.finished_at = utc_now_iso8601();

  const std::vector<CaseMetrics> metrics = compute_metrics(record);
  print_summary_table(record, metrics, out);
  const std::string path = write_run_report(build_report_json(record, metrics), c.out_root);
  out << "report: " << path << "\n";
  out << "candidate " << name << " (" << source.source << ", sha256 " << source.sha256.substr(0, 16) << ")"
      << (source.compile_command.empty() ? "" : "\ncompiled with: " + source.compile_command) << "\n";
  return run_exit_status(record, metrics);
}

}  // namespace nb
