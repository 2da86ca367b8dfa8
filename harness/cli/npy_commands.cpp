#include "harness/cli/npy_commands.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "harness/errors.hpp"
#include "harness/cli/dump_folder.hpp"
#include "harness/files/folder_swap.hpp"
#include "harness/npy/npy_file.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/run/memory_footprint.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/trial_tolerance.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;

// One trial as the validator builds it: inputs drawn, reference computed, tolerances per tensor.
struct HostTrial {
  const OpSpec* op = nullptr;
  Problem problem;
  std::vector<TensorDecl> decls;
  HostTensors inputs;
  ReferenceTensors reference;
  TrialTolerances tolerances;
};

// The host memory a trial needs: float inputs, float64 references and float results (check), plus
// the largest tensor once more as a file's bytes (dump) or as the read file's doubles (check).
double host_trial_bytes(const std::vector<TensorDecl>& decls) {
  double largest = 0;
  for (const TensorDecl& d : decls) largest = std::max(largest, static_cast<double>(d.elements));
  return estimate_footprint({decls}).host_bytes + largest * (sizeof(double) + sizeof(float));
}

// The problem and its tensors, refused when the trial would not fit in host memory.
HostTrial plan_trial(const Registry& registry, const NpyTrial& t) {
  HostTrial h;
  h.op = &registry.op_of_problem_id(t.problem);
  h.problem = h.op->parse_problem_id(t.problem);
  h.decls = h.op->tensors(h.problem);
  parse_distribution(t.distribution);
  const double need = host_trial_bytes(h.decls), available = host_memory_available();
  if (need > available)
    throw UsageError(h.problem.id() + " needs " + format_gib(need) + " of host memory for its inputs and float64 "
                     "reference, " + format_gib(available) + " available: choose a smaller problem");
  return h;
}

// Draws the inputs and computes the reference and the tolerances of a planned trial.
void compute_trial(HostTrial& h, const NpyTrial& t) {
  h.inputs = allocate_host_inputs(h.decls);
  draw_stored_inputs(*h.op, h.problem, h.decls, parse_distribution(t.distribution), t.seed, h.inputs);
  h.reference = allocate_references(h.decls);
  h.op->reference(h.problem, h.inputs, h.reference);
  for (const auto& values : h.reference.data) h.reference.rms.push_back(finite_rms(values));
  h.tolerances = trial_tolerances(*h.op, h.problem, h.decls, h.inputs, h.reference);
}

std::string input_file(const TensorDecl& d) { return d.name + ".npy"; }
std::string reference_file(const TensorDecl& d) { return d.name + ".reference.npy"; }

// The manifest entry of tensor i, naming its files (written beside it) and its tolerance.
nlohmann::ordered_json manifest_tensor(const HostTrial& h, std::size_t i) {
  const TensorDecl& d = h.decls[i];
  const bool has_input = d.role != TensorRole::output, has_reference = d.role != TensorRole::input;
  const Tolerance& tol = h.tolerances.per_tensor.at(i);
  return {{"index", i},
          {"name", d.name},
          {"role", role_name(d.role)},
          {"shape", dims_of(d)},
          {"dtype", "float32"},
          {"file", has_input ? nlohmann::ordered_json(input_file(d)) : nlohmann::ordered_json(nullptr)},
          {"reference_file", has_reference ? nlohmann::ordered_json(reference_file(d)) : nlohmann::ordered_json(nullptr)},
          {"tolerance", has_reference ? nlohmann::ordered_json({{"normwise", tol.normwise},
                                                                {"elementwise", tol.elementwise},
                                                                {"floor_fraction", tol.floor_fraction}})
                                      : nlohmann::ordered_json(nullptr)}};
}

// Every file of the set, into `dir`: each input's and reference's .npy, then manifest.json.
void write_dump_files(const HostTrial& h, const NpyTrial& trial, const std::string& dir) {
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < h.decls.size(); ++i) {
    const TensorDecl& d = h.decls[i];
    if (d.role != TensorRole::output) write_npy_f32((fs::path(dir) / input_file(d)).string(), dims_of(d), h.inputs.data[i]);
    if (d.role != TensorRole::input)
      write_npy_f64((fs::path(dir) / reference_file(d)).string(), dims_of(d), h.reference.data[i]);
    tensors.push_back(manifest_tensor(h, i));
  }
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [k, v] : h.problem.params.values()) params[k] = v;
  const nlohmann::ordered_json manifest = {{"schema", "normbench.npy_trial"},
                                           {"problem", h.problem.id()},
                                           {"op", h.op->name()},
                                           {"params", params},
                                           {"distribution", trial.distribution},
                                           {"seed", trial.seed},
                                           {"tensors", tensors},
                                           {"check", "normbench check --problem " + h.problem.id() + " --distribution " +
                                                         trial.distribution + " --seed " +
                                                         std::to_string(trial.seed) + " --outputs DIR"}};
  write_file_atomically((fs::path(dir) / "manifest.json").string(), manifest.dump(2) + "\n");
}

}  // namespace

int dump_command(const Registry& registry, const NpyTrial& trial, const std::string& dir, std::ostream& out) {
  HostTrial h = plan_trial(registry, trial);
  check_dump_folder(dir);  // before the work, not after it
  compute_trial(h, trial);
  replace_folder(dir, [&](const std::string& staging) { write_dump_files(h, trial, staging); });
  out << "wrote " << h.decls.size() << " tensors of " << h.problem.id() << " (" << trial.distribution << ", seed "
      << trial.seed << ") to " << dir << "\n";
  return kExitOk;
}

int check_command(const Registry& registry, const NpyTrial& trial, const std::string& outputs_dir, std::ostream& out) {
  HostTrial h = plan_trial(registry, trial);
  HostTensors results = allocate_host_results(h.decls);  // read first: a bad file is found before the work
  for (std::size_t i = 0; i < h.decls.size(); ++i) {
    const TensorDecl& d = h.decls[i];
    if (d.role == TensorRole::input) continue;
    const std::string path = (fs::path(outputs_dir) / (d.name + ".npy")).string();
    const NpyArray a = read_npy(path);
    if (a.elements() != d.elements)
      throw UsageError(path + ": holds " + std::to_string(a.elements()) + " values, " + d.name + " has " +
                       std::to_string(d.elements) + " " + format_dims(dims_of(d)));
    results.data[i].assign(a.values.begin(), a.values.end());
  }
  compute_trial(h, trial);
  const auto tolerance_of = [&](int i) { return h.tolerances.per_tensor.at(static_cast<std::size_t>(i)); };
  const TrialJudgement j = judge_trial(h.decls, results, h.reference, tolerance_of, false);
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %12s %12s %12s %12s  %s\n", "tensor", "normwise", "(bound)", "elementwise",
                "(bound)", "NaN/Inf placement");
  out << h.problem.id() << " (" << trial.distribution << ", seed " << trial.seed << ")\n" << line;
  for (const TensorErrors& e : j.tensors) {
    std::size_t i = 0;
    while (i < h.decls.size() && h.decls[i].name != e.name) ++i;
    const Tolerance& tol = h.tolerances.per_tensor.at(i);
    std::snprintf(line, sizeof line, "%-14s %12.3e %12.3e %12.3e %12.3e  %s\n", e.name.c_str(), e.normwise,
                  tol.normwise, e.elementwise, tol.elementwise,
                  e.nonfinite_mismatch ? (std::to_string(e.nonfinite_mismatch) + " mismatched").c_str() : "ok");
    out << line;
  }
  out << (j.passed ? "passed\n" : "incorrect: " + j.failure + "\n");
  return j.passed ? kExitOk : kExitVerdictFailed;
}

}  // namespace nb
