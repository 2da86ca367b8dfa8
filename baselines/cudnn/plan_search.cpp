// The heuristics' search for a graph's plan (plan_search.hpp).
#include "baselines/cudnn/plan_search.hpp"

#include <exception>
#include <iomanip>
#include <sstream>
#include <utility>

#include "baselines/cudnn/engine_info.hpp"
#include "baselines/cudnn/plan_serialization.hpp"
#include "harness/library_check.hpp"
#include "harness/run/phase_times.hpp"

namespace nb::cudnn_backend {
namespace {

constexpr int kMaxConfigs = 32;  // engine configs asked of each heuristics mode

// "CUDNN_STATUS_NOT_SUPPORTED_..." out of an nb::Unsupported message, for the compact list.
std::string status_code(const std::string& what) {
  const auto p = what.find("CUDNN_STATUS_");
  if (p == std::string::npos) return "error";
  const auto e = what.find_first_of(" :)", p);
  return what.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

// " (4.2 s)" for a step that took 0.05 s or more, else "".
std::string seconds_note(double s) {
  if (s < 0.05) return "";
  std::ostringstream o;
  o.precision(s < 10 ? 2 : 3);
  o << " (" << s << " s)";
  return o.str();
}

// Distinct detailed messages, in first-seen order.
struct Details {
  std::vector<std::string> items;
  void add(const std::string& what) {
    const std::string b = brief(what);
    for (const auto& i : items)
      if (i == b) return;
    items.push_back(b);
  }
};

// Joins with `sep`; a run of identical items (the same engine refused for several configs)
// is written once with its count, "engine 7 skipped (...) x5".
std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t run = 1;
    while (i + run < v.size() && v[i + run] == v[i]) ++run;
    s += (s.empty() ? "" : sep) + v[i] + (run > 1 ? " x" + std::to_string(run) : "");
    i += run;
  }
  return s;
}

// The search's record: what each mode's configs said before the kept one, and cuDNN's details.
struct Search {
  std::vector<std::string> per_mode;  // "heur A: engine 3 CUDNN_STATUS_... (4.2 s), ..." of modes done
  Details details;

  std::string before(const char* mode, const std::vector<std::string>& tries) const {
    std::string b = join(per_mode, "; ");
    if (!tries.empty()) b += (b.empty() ? "" : "; ") + std::string(mode) + ": " + join(tries, ", ");
    return b.empty() ? "" : "; before it: " + b;
  }
};

// The heuristics' configs of one mode (at most kMaxConfigs); throws Unsupported when refused.
std::vector<DescPtr> heuristic_configs(const Graph& graph, cudnnBackendHeurMode_t mode) {
  Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heur.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, *graph.graph).set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode);
  heur.finalize();
  std::vector<DescPtr> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int i = 0; i < kMaxConfigs; ++i) {
    configs.push_back(std::make_unique<Descriptor>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(configs.back()->get());
  }
  int64_t count = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              kMaxConfigs, &count, raw.data()));
  configs.resize(std::size_t(count));
  return configs;
}

// The config's finalized plan; throws Unsupported with cuDNN's status when it does not finalize.
DescPtr finalize_plan(cudnnHandle_t handle, const Descriptor& config) {
  auto plan = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  plan->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle).set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
  plan->finalize();
  return plan;
}

// Tries one mode's configs in order; the first plan that finalizes, or a null plan with the
// mode's tries added to the search.
PlannedGraph search_mode(cudnnHandle_t handle, const Graph& graph, bool allow_tf32, cudnnBackendHeurMode_t mode,
                         const char* mode_name, Search& search) {
  std::vector<std::string> tries;
  try {
    const std::vector<DescPtr> configs = heuristic_configs(graph, mode);
    if (configs.empty()) tries.push_back("no engine config");
    for (std::size_t i = 0; i < configs.size(); ++i) {
      EngineInfo info;
      try {
        info = engine_info(*configs[i]);
      } catch (const std::exception& e) {
        tries.push_back("config " + std::to_string(i) + " unreadable " + status_code(e.what()));
        search.details.add(e.what());
        continue;
      }
      const std::string tag = "engine " + std::to_string(info.index);
      if (!allow_tf32 && info.uses_tf32()) {
        tries.push_back(tag + " skipped (notes " + info.notes() + ": TF32, not IEEE fp32)");
        continue;
      }
      Stopwatch clock;
      try {
        PlannedGraph out;
        out.plan = finalize_plan(handle, *configs[i]);
        const double finalize_s = clock.lap();
        out.workspace = plan_workspace(*out.plan);
        out.runtime_compiled = info.runtime_compiled();
        std::ostringstream ok;
        ok << "ok (" << tag << ", " << mode_name << " config " << i + 1 << " of " << configs.size() << ", notes "
           << info.notes() << ", workspace " << out.workspace << " B, finalized in " << std::fixed
           << std::setprecision(3) << finalize_s << " s"
           << search.before(mode_name, tries) << ")";
        out.status = ok.str();
        return out;
      } catch (const std::exception& e) {
        tries.push_back(tag + " " + status_code(e.what()) + seconds_note(clock.lap()));
        search.details.add(e.what());
      }
    }
  } catch (const std::exception& e) {
    tries.push_back("heuristics refused " + status_code(e.what()));
    search.details.add(e.what());
  }
  search.per_mode.push_back(std::string(mode_name) + ": " + join(tries, ", "));
  return {};
}

}  // namespace

PlannedGraph search_plan(cudnnHandle_t handle, const Graph& graph, bool allow_tf32) {
  Search search;
  for (const auto& [mode, name] : {std::pair{CUDNN_HEUR_MODE_A, "heur A"}, std::pair{CUDNN_HEUR_MODE_FALLBACK, "heur FALLBACK"}}) {
    PlannedGraph found = search_mode(handle, graph, allow_tf32, mode, name, search);
    if (found.plan) return found;
  }
  PlannedGraph out;
  out.status = "failed: " + join(search.per_mode, "; ");
  if (!search.details.items.empty()) out.status += " | " + join(search.details.items, " | ");
  return out;
}

}  // namespace nb::cudnn_backend
