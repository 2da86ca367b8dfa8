#include "harness/cli/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.hpp"
#include "harness/cli/devices_run.hpp"
#include "harness/cli/eval_commands.hpp"
#include "harness/cli/npy_commands.hpp"
#include "harness/cli/option_checks.hpp"
#include "harness/cli/version.hpp"
#include "harness/distribution.hpp"
#include "harness/errors.hpp"
#include "harness/plan_cache/plan_cache_setting.hpp"
#include "harness/device/provenance.hpp"
#include "harness/report/report_commands.hpp"
#include "harness/run/rows_in_flight_setting.hpp"
#include "harness/validation/validation_plan.hpp"

namespace nb {
namespace {

// The ranges of the numeric options (option_checks.hpp refuses NaN, infinities and text).
constexpr std::int64_t kMostTrials = 1000000, kMostSamples = 100000000, kMostDevice = 1023, kMostPlanThreads = 256;
constexpr double kMostSeconds = 7 * 24 * 3600.0;  // --min-time, --case-timeout: a week
constexpr double kMostPercent = 1e6;              // --fail-on-regression, --min-noise
constexpr double kMostSpreadK = 1000, kMostMicroseconds = 1e6;

struct ListArgs {
  std::string what = "ops";
  std::vector<std::string> ops;
  std::string suite;
  std::string problem;
};

void add_list(CLI::App& app, ListArgs& a) {
  auto* list = app.add_subcommand("list", "List ops, variants, suites or problems");
  list->add_option("what", a.what, "ops | variants | suites | problems | tensors")->check(
      CLI::IsMember({"ops", "variants", "suites", "problems", "tensors"}));
  list->add_option("--op", a.ops, "Only these ops")->delimiter(',');
  list->add_option("--suite", a.suite, "Only problems of this suite");
  list->add_option("--problem", a.problem, "tensors: the shapes of this problem (default: the op's first quick problem)");
}

// Where the float64 references run: --reference device (the default) or host.
void add_reference_option(CLI::App* cmd, RunOptions& o) {
  cmd->add_option_function<std::string>(
         "--reference",
         [&o](const std::string& place) {
           o.validation.reference = place == "host" ? ReferencePlace::host : ReferencePlace::device;
         },
         "Float64 references: device (plain GPU kernels, audited by Eigen on sampled slices) or host (Eigen "
         "throughout: slow)")
      ->check(CLI::IsMember({"device", "host"}))
      ->type_name("device|host")
      ->default_str("device");
}

// --trials, --huge-trials, --slow-launch-ms, --distributions, --full-validation, --strict,
// --reference, --min-time, --max-samples and --device, as run, eval and eval's workers take them.
void add_validation_and_timing_options(CLI::App* cmd, RunOptions& o, std::vector<std::string>& distributions,
                                       bool& full_validation) {
  cmd->add_option("--trials", o.validation.trials, "Fresh trials per distribution")
      ->capture_default_str()->check(whole_in(1, kMostTrials));
  cmd->add_option("--huge-trials", o.validation.huge_problem_trials,
                  "Trials for problems over 512M elements (at most --trials)")
      ->capture_default_str()->check(whole_in(1, kMostTrials));
  cmd->add_option("--slow-launch-ms", o.validation.slow_launch_ms,
                  "A variant whose validated launch takes longer gets one trial per distribution, not --trials")
      ->capture_default_str()->check(real_in(0, kMostSeconds * 1e3));
  cmd->add_option("--distributions", distributions, "Distributions to validate (default: by size)")
      ->delimiter(',')->check(not_empty());
  cmd->add_flag("--full-validation", full_validation, "Every distribution at every size");
  cmd->add_flag_callback(
      "--misaligned", [&o] { o.placement = TensorPlacement::misaligned; },
      "Every tensor one element past a 256-byte boundary (2 bytes in bf16/fp16, 4 in fp32): vector paths must "
      "fall back, or the variant declines the case with a reason");
  cmd->add_flag("--strict", o.validation.strict,
                "A bound missed on a stress distribution fails the case (default: it stands, marked fragile)");
  add_reference_option(cmd, o);
  cmd->add_option("--min-time", o.samples.min_time_s, "Timed seconds per case")
      ->capture_default_str()->check(real_in(0, kMostSeconds, true));
  cmd->add_option("--max-samples", o.samples.max_samples, "Most samples per case")
      ->capture_default_str()->check(whole_in(1, kMostSamples));
  cmd->add_option("--device", o.device, "CUDA device")->capture_default_str()->check(whole_in(0, kMostDevice));
}

// --plan-cache DIR and --no-plan-cache, as run and eval take them.
struct PlanCacheArgs {
  std::string folder;
  bool off = false;
  int threads = -1;  // --plan-threads; -1: the default

  PlanCacheSetting resolve() const {
    return resolve_plan_cache(folder.empty() ? std::nullopt : std::optional<std::string>(folder), off,
                              [](const char* name) { return std::getenv(name); });
  }
};

void add_plan_cache_options(CLI::App* cmd, PlanCacheArgs& a) {
  auto* folder = cmd->add_option("--plan-cache", a.folder,
                                 "Folder that keeps built cuDNN plans across runs (default: $NORMBENCH_PLAN_CACHE, "
                                 "else $XDG_CACHE_HOME/normbench/cudnn-plans, else ~/.cache/normbench/cudnn-plans)")
                     ->check(not_empty())
                     ->type_name("DIR");
  cmd->add_flag("--no-plan-cache", a.off, "Build every cuDNN plan; keep none")->excludes(folder);
  cmd->add_option("--plan-threads", a.threads,
                  "Host threads that build the cuDNN plans ahead of the validation, through the plan cache "
                  "(default: the cores less two, at most 16; 0: each plan in its problem's turn)")
      ->check(whole_in(0, kMostPlanThreads))
      ->type_name("INT");
}

// --no-launches, as run, eval and eval's workers take it.
void add_launches_option(CLI::App* cmd, RunOptions& o) {
  cmd->add_flag_callback("--no-launches", [&o] { o.record_launches = false; },
                         "Record no kernels: skip the one untimed launch a case gets after its validation, whose "
                         "kernels (grid, block, cluster, registers, shared memory) CUPTI records for the report");
}

// The options run and eval share: validation, timing, device, output.
void add_run_options(CLI::App* cmd, RunOptions& o, std::vector<std::string>& distributions, bool& full_validation,
                     std::string& out_root) {
  cmd->add_flag("--validate-only", o.validate_only, "Validate, do not time");
  cmd->add_option("--out", out_root, "Report root folder")->capture_default_str()->check(not_empty());
  add_validation_and_timing_options(cmd, o, distributions, full_validation);
  add_launches_option(cmd, o);
  cmd->add_flag_callback("--quiet", [&o] { o.progress = false; }, "No progress lines");
}

struct EvalArgs {
  EvalCommand command;
  std::vector<std::string> distributions;
  bool full_validation = false, no_builtins = false;
  PlanCacheArgs plan_cache;
  EvalWorkerCommand worker;
  std::vector<std::string> worker_distributions;
  bool worker_full_validation = false;
  std::string worker_out;
};

void add_eval(CLI::App& app, EvalArgs& a) {
  auto* eval = app.add_subcommand(
      "eval", "Validate and time a candidate kernel (.cu or .so, include/normbench/candidate.h) beside the built-ins");
  EvalCommand& c = a.command;
  c.selection.suite = "kb";
  eval->add_option("candidate", c.candidate, "CANDIDATE.cu (compiled with nvcc) or CANDIDATE.so")->required();
  eval->add_option("--op", c.op, "The op the candidate implements")->required()->check(not_empty());
  eval->add_option("--suite", c.selection.suite, "Suite: kb, llm, sweep, quick")->capture_default_str()->check(not_empty());
  eval->add_option("--problem", c.selection.problems, "Problem ids (replace the suite)")->delimiter(',')->check(not_empty());
  eval->add_option("--variant", c.selection.variants, "Built-in variants beside it (default: all)")
      ->delimiter(',')->check(not_empty());
  eval->add_flag("--no-builtins", a.no_builtins, "Run the candidate alone");
  eval->add_option("--name", c.name, "The candidate's name in the report (default: the file's stem)")->check(not_empty());
  eval->add_option("--nvcc-flag", c.nvcc_flags, "An extra nvcc flag (repeatable)")->allow_extra_args(false);
  eval->add_option("--case-timeout", c.case_timeout_s, "Seconds before a candidate case is killed")
      ->capture_default_str()->check(real_in(0, kMostSeconds, true));
  add_run_options(eval, c.options, a.distributions, a.full_validation, c.out_root);
  add_plan_cache_options(eval, a.plan_cache);
  eval->allow_extras();  // --benchmark_* flags go to Google Benchmark

  auto* worker = app.add_subcommand("eval-worker", "");  // hidden: a child process of eval
  worker->group("");
  EvalWorkerCommand& w = a.worker;
  worker->add_flag("--probe", w.probe);
  for (auto [flag, target] : {std::pair{"--library", &w.library}, {"--source", &w.source}, {"--sha256", &w.sha256},
                              {"--compile-command", &w.compile_command}, {"--name", &w.name}, {"--op", &w.op},
                              {"--problem", &w.problem}})
    worker->add_option(flag, *target);
  worker->add_option("--result-fd", w.result_fd);
  add_run_options(worker, w.options, a.worker_distributions, a.worker_full_validation, a.worker_out);
}

struct RunArgs {
  RunCommand command;
  std::vector<std::string> distributions;
  bool full_validation = false;
  PlanCacheArgs plan_cache;
};

void add_run(CLI::App& app, RunArgs& a) {
  auto* run = app.add_subcommand("run", "Validate and time cases; write report.json and report.html");
  Selection& s = a.command.selection;
  RunOptions& o = a.command.options;
  s.suite = "kb";
  run->add_option("--op", s.ops, "Ops to run (default: all)")->delimiter(',')->check(not_empty());
  run->add_option("--variant", s.variants, "Variants to run (default: all)")->delimiter(',')->check(not_empty());
  run->add_option("--suite", s.suite, "Suite: kb, llm, sweep, quick")->capture_default_str()->check(not_empty());
  run->add_option("--problem", s.problems, "Problem ids (replace the suite)")->delimiter(',')->check(not_empty());
  run->add_option("--params", s.params, "One custom problem of the one --op, e.g. n=3,c=65,h=7,w=9")
      ->check(not_empty());
  run->add_option("--dtype", s.dtype,
                  "Element type or precision: fp32, tf32, bf16, fp16 (default: each problem's own; fp32 with --params)")
      ->check(not_empty());
  run->add_flag("--validate-only", o.validate_only, "Validate, do not time");
  run->add_flag("--profile", o.profile, "One launch per case inside its NVTX range (for ncu/nsys)");
  run->add_option("--out", a.command.out_root, "Report root folder")->capture_default_str()->check(not_empty());
  add_validation_and_timing_options(run, o, a.distributions, a.full_validation);
  add_launches_option(run, o);
  run->add_option("--devices", a.command.devices,
                  "all or 0,2: one worker process per GPU, side by side, then one fleet page")
      ->check(not_empty());
  run->add_option("--run-id", a.command.run_id, "The report folder's name (default: <UTC time>-<commit>)")
      ->check(not_empty());
  run->add_flag_callback("--quiet", [&o] { o.progress = false; }, "No progress lines");
  add_plan_cache_options(run, a.plan_cache);
  run->allow_extras();  // --benchmark_* flags go to Google Benchmark
}

struct ReportArgs {
  std::string html_input, html_out;
  CompareOptions compare;
  double fail_on_regression = 0;
  std::vector<std::string> fleet_inputs;
  std::string fleet_out;
};

void add_report_commands(CLI::App& app, ReportArgs& a) {
  auto* html = app.add_subcommand("html", "Render a report.json as a self-contained report.html");
  html->add_option("report", a.html_input, "report.json (or report.json.gz)")->required();
  html->add_option("-o,--out", a.html_out, "Output file (default: report.html beside the JSON)")->check(not_empty());
  auto* compare = app.add_subcommand("compare", "Compare two runs: SAME / FASTER / SLOWER beyond both runs' noise");
  compare->add_option("base", a.compare.base_path, "Base report.json (or report.json.gz)")->required();
  compare->add_option("new", a.compare.new_path, "New report.json (or report.json.gz)")->required();
  compare->add_flag("--json", a.compare.json, "Print JSON instead of the table");
  compare->add_option("--html", a.compare.html_out, "Also write an HTML page")->check(not_empty());
  compare->add_option("--fail-on-regression", a.fail_on_regression,
                      "Exit 1 when a case is slower by more than PCT percent or a verdict regressed")
      ->check(real_in(0, kMostPercent));
  compare->add_option("--min-noise", a.compare.min_noise_pct, "Smallest change in percent that can count")
      ->capture_default_str()->check(real_in(0, kMostPercent));
  compare->add_option("--spread-k", a.compare.spread_multiplier, "Multiplier on the runs' combined spread")
      ->capture_default_str()->check(real_in(0, kMostSpreadK));
  compare->add_option("--min-us", a.compare.min_us,
                      "Smallest change in microseconds that can count (CUDA events resolve about 0.5 us each)")
      ->capture_default_str()->check(real_in(0, kMostMicroseconds));
  auto* fleet = app.add_subcommand("fleet", "One page comparing the best variant per problem across GPUs");
  fleet->add_option("inputs", a.fleet_inputs, "report.json or report.json.gz files, or folders to search for them")->required();
  fleet->add_option("-o,--out", a.fleet_out, "Output file (default: fleet.html)")->check(not_empty());
}

struct CeilingsArgs {
  int device = 0;
  bool json = false;
};

void add_ceilings(CLI::App& app, CeilingsArgs& a) {
  auto* ceilings = app.add_subcommand(
      "ceilings", "Measure the copy, read, write and read2_write1 bandwidth against the theoretical peak");
  ceilings->add_option("--device", a.device, "CUDA device")->capture_default_str()->check(whole_in(0, kMostDevice));
  ceilings->add_flag("--json", a.json, "Print JSON instead of the table");
}

struct NpyArgs {
  NpyTrial trial;
  std::string dump_dir, outputs_dir;
};

void add_npy_commands(CLI::App& app, NpyArgs& a) {
  auto* dump = app.add_subcommand("dump", "Write one trial's inputs and float64 reference as .npy files (+ manifest.json)");
  auto* check = app.add_subcommand("check", "Judge outputs computed elsewhere (.npy files) against the reference");
  for (CLI::App* cmd : {dump, check}) {
    cmd->add_option("--problem", a.trial.problem, "Problem id")->required()->check(not_empty());
    cmd->add_option("--distribution", a.trial.distribution, "Input distribution")->capture_default_str();
    cmd->add_option("--seed", a.trial.seed, "Seed of the inputs")->capture_default_str()->check(unsigned_whole());
  }
  dump->add_option("dir", a.dump_dir, "Folder to write")->required()->check(not_empty());
  check->add_option("--outputs", a.outputs_dir, "Folder holding <tensor>.npy for each output and inout")
      ->required()->check(not_empty());
}

// `command`: the subcommand the options were given to (what it was given, not its defaults).
void finish_run_options(const CLI::App& command, RunOptions& o, const std::vector<std::string>& distributions,
                        bool full_validation) {
  for (const auto& d : distributions) o.validation.distributions.push_back(parse_distribution(d));
  if (full_validation) o.validation.distributions = all_distributions();
  check_validation_options(o.validation);
  o.rows_in_flight = rows_in_flight_from_environment();  // a bad value stops the run before any case
  set_rows_in_flight(o.rows_in_flight);                  // the kernels' (not read again at each launch)
  ValidationOptions& v = o.validation;
  if (command.count("--huge-trials") > 0 && v.huge_problem_trials > v.trials)
    throw UsageError("--huge-trials " + std::to_string(v.huge_problem_trials) + " exceeds --trials " +
                     std::to_string(v.trials) + ": huge problems run at most --trials trials");
  v.huge_problem_trials = std::min(v.huge_problem_trials, v.trials);  // the default follows a smaller --trials
  if (!(o.samples.min_time_s > 0) || !std::isfinite(o.samples.min_time_s) ||
      o.samples.max_samples < o.samples.min_samples)
    throw UsageError("--min-time must be positive and --max-samples at least " + std::to_string(o.samples.min_samples));
}

// Options of run that contradict each other: both given is a usage error, neither one dropped.
constexpr OptionConflict kProblemOrSuite = {"--problem", "--suite", "problem ids replace the suite"};
constexpr std::initializer_list<OptionConflict> kRunConflicts = {
    {"--params", "--problem", "--params is one custom problem, --problem names problems"},
    {"--params", "--suite", "a custom problem (--params) replaces the suite"},
    kProblemOrSuite,
    {"--devices", "--device", "--devices runs one worker per listed GPU"},
    {"--devices", "--profile", "--profile runs on one --device"},
    {"--profile", "--validate-only", "--profile launches each case once, neither validated nor timed"}};

int dispatch_run(const CLI::App& command, const Registry& registry, RunArgs& run, int argc, char** argv) {
  RunCommand& c = run.command;
  refuse_conflicts(command, kRunConflicts);
  finish_run_options(command, c.options, run.distributions, run.full_validation);
  c.options.plan_cache = run.plan_cache.resolve();
  c.options.plan_threads = run.plan_cache.threads;
  c.benchmark_args = command.remaining();
  c.options.suite = c.selection.problems.empty() && c.selection.params.empty() ? c.selection.suite : "";
  c.options.command_line = quote_command_line(argc, argv);
  c.program = argv[0];
  c.argv.assign(argv, argv + argc);
  if (!c.run_id.empty() && (c.run_id[0] == '.' || c.run_id.size() > 100 ||
                            c.run_id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789._-") != std::string::npos))
    throw UsageError("--run-id '" + c.run_id + "': use letters, digits, '.', '_' and '-' only, not starting with '.'");
  if (!c.devices.empty()) {
    select_cases(registry, c.selection);  // a bad selection is one usage error here, not one per GPU
    for (const auto& a : c.benchmark_args)
      if (a.rfind("--benchmark_", 0) != 0) throw UsageError("unrecognised argument '" + a + "'");
    return devices_run_command(c, std::cout);
  }
  return run_command(registry, c, std::cout);
}

// Options of eval that contradict each other.
constexpr std::initializer_list<OptionConflict> kEvalConflicts = {
    {"--no-builtins", "--variant", "--variant picks the built-ins run beside the candidate"}, kProblemOrSuite};

int dispatch_eval(CLI::App& app, const Registry& registry, EvalArgs& eval, int argc, char** argv) {
  if (app.got_subcommand("eval-worker")) {
    finish_run_options(*app.get_subcommand("eval-worker"), eval.worker.options, eval.worker_distributions,
                       eval.worker_full_validation);
    return eval_worker_command(registry, eval.worker);
  }
  EvalCommand& c = eval.command;
  const CLI::App& command = *app.get_subcommand("eval");
  refuse_conflicts(command, kEvalConflicts);
  finish_run_options(command, c.options, eval.distributions, eval.full_validation);
  c.options.plan_cache = eval.plan_cache.resolve();
  c.options.plan_threads = eval.plan_cache.threads;
  c.builtins = !eval.no_builtins;
  c.benchmark_args = app.get_subcommand("eval")->remaining();
  for (const auto& a : c.benchmark_args)
    if (a.rfind("--benchmark_", 0) != 0) throw UsageError("unrecognised argument '" + a + "'");
  c.options.suite = c.selection.problems.empty() ? c.selection.suite : "";
  c.options.command_line = quote_command_line(argc, argv);
  c.program = argv[0];
  return eval_command(registry, c, std::cout);
}

int dispatch(CLI::App& app, const Registry& registry, ListArgs& list, RunArgs& run, ReportArgs& reports,
             const CeilingsArgs& ceilings, EvalArgs& eval, const NpyArgs& npy, int argc, char** argv) {
  if (app.got_subcommand("eval") || app.got_subcommand("eval-worker")) return dispatch_eval(app, registry, eval, argc, argv);
  if (app.got_subcommand("dump")) return dump_command(registry, npy.trial, npy.dump_dir, std::cout);
  if (app.got_subcommand("check")) return check_command(registry, npy.trial, npy.outputs_dir, std::cout);
  if (app.got_subcommand("list") && list.what == "tensors")
    return list_tensors_command(registry, list.ops, list.problem, std::cout);
  if (app.got_subcommand("list")) return list_command(registry, list.what, list.ops, list.suite, std::cout);
  if (app.got_subcommand("ceilings")) return ceilings_command(ceilings.device, ceilings.json, std::cout);
  if (app.got_subcommand("html")) return html_command(reports.html_input, reports.html_out);
  if (app.got_subcommand("fleet")) return fleet_command(reports.fleet_inputs, reports.fleet_out);
  if (app.got_subcommand("compare")) {
    if (app.get_subcommand("compare")->count("--fail-on-regression") > 0)
      reports.compare.fail_on_regression_pct = reports.fail_on_regression;
    return compare_command(reports.compare);
  }
  return dispatch_run(*app.get_subcommand("run"), registry, run, argc, argv);
}

// A first argument that is neither an option nor a subcommand is named, with the subcommands
// (CLI11 would say only that a subcommand is required).
void refuse_unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || std::string(argv[1]) == "eval-worker") return;  // eval-worker: hidden
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    if (sub->get_name() == argv[1]) return;
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  throw UsageError(std::string("'") + argv[1] + "' is not a subcommand (subcommands: " + names +
                   "; run 'normbench --help')");
}

}  // namespace

int cli_main(int argc, char** argv, const Registry& registry) {
  CLI::App app{"normbench: validate, time and report normalization and reduction kernels"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text(), "Print the normbench version and the commit it was built from");
  ListArgs list;
  RunArgs run;
  ReportArgs reports;
  CeilingsArgs ceilings;
  EvalArgs eval;
  NpyArgs npy;
  add_list(app, list);
  add_run(app, run);
  add_report_commands(app, reports);
  add_ceilings(app, ceilings);
  add_eval(app, eval);
  add_npy_commands(app, npy);
  try {
    refuse_unknown_subcommand(app, argc, argv);
    app.parse(argc, argv);
    return dispatch(app, registry, list, run, reports, ceilings, eval, npy, argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "normbench: " << e.what() << "\n(run 'normbench --help')\n";
    return kExitUsage;
  } catch (const UsageError& e) {
    std::cerr << "normbench: " << e.what() << "\n";
    return kExitUsage;
  } catch (const DeviceError& e) {
    std::cerr << "normbench: device error: " << e.what() << "\n";
    return kExitDevice;
  } catch (const nlohmann::json::exception& e) {  // a report or result file with a field of the wrong type
    std::cerr << "normbench: malformed JSON content: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {  // the estimates before each allocation missed: still a message, not abort()
    std::cerr << "normbench: out of host memory: the request needs more memory than this host can give\n";
    return kExitUsage;
  } catch (const std::length_error& e) {
    std::cerr << "normbench: out of host memory: a buffer larger than the host can address (" << e.what() << ")\n";
    return kExitUsage;
  }
}

}  // namespace nb
