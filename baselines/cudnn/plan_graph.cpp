// plan_graph: a graph's plan from the plan cache, else from the heuristics' search, then kept in
// the cache (graph_plan.hpp).
#include <cstdio>
#include <exception>
#include <optional>

#include "baselines/cudnn/graph_plan.hpp"
#include "baselines/cudnn/plan_search.hpp"
#include "baselines/cudnn/plan_serialization.hpp"
#include "harness/errors.hpp"
#include "harness/run/phase_times.hpp"

namespace nb::cudnn_backend {
namespace {

// The graph to plan and its key in the plan cache, or why the graph could not be built.
struct KeyedGraph {
  Graph graph;
  std::string key_sha256;  // "" without a plan cache
  std::string refused;     // "graph refused: ..." when build() threw
};

KeyedGraph build_keyed(const std::function<Graph()>& build, bool allow_tf32, const PlanCacheUse& cache) {
  KeyedGraph g;
  try {
    g.graph = build();
  } catch (const std::exception& e) {
    g.refused = "graph refused: " + brief(e.what());
    return g;
  }
  if (cache.store) {
    const std::string search = std::string(kPlanSearch) + (allow_tf32 ? ", TF32 allowed" : ", IEEE fp32 only");
    g.key_sha256 = plan_key_sha256(cache.identity, search + "\n" + g.graph.graph->recipe());
  }
  return g;
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", s);
  return text;
}

void tell(const PlanCacheUse& cache, const std::string& label, PlanSource source, double seconds,
          const PlannedGraph& p) {
  if (cache.events) cache.events->push_back({"", label, source, seconds, p.runtime_compiled, p.status});
}

// The stored plan of the graph, or a null plan: none, or one cuDNN refuses (a warning).
PlannedGraph load(cudnnHandle_t handle, const KeyedGraph& g, const std::string& label, const PlanCacheUse& cache) {
  if (!cache.store || !cache.load || !g.refused.empty()) return {};
  Stopwatch clock;
  const std::optional<PlanRecord> record = cache.store->load(g.key_sha256, cache.identity);
  if (!record) return {};
  PlannedGraph out;
  try {
    out.plan = deserialize_plan(handle, record->blob);
    out.workspace = plan_workspace(*out.plan);
  } catch (const std::exception& e) {  // Unsupported from cuDNN; a DeviceError would mean the same here
    cache.store->warn(cache.store->path_of(g.key_sha256), "cuDNN refuses its plan: " + brief(e.what()));
    return {};
  }
  const double load_s = clock.lap();
  out.runtime_compiled = record->runtime_compiled;
  out.status = "loaded from the plan cache in " + seconds_text(load_s) + "; built in " + seconds_text(record->build_s) +
               ": " + record->status;
  tell(cache, label, PlanSource::loaded, load_s, out);
  return out;
}

// Keeps the built plan in the cache; what happened, for its status.
std::string keep(const PlannedGraph& p, const KeyedGraph& g, const std::string& label, double build_s,
                 const PlanCacheUse& cache) {
  if (!cache.store) return "; no plan cache";
  std::string blob;
  try {
    blob = serialize_plan(*p.plan);
  } catch (const Unsupported& e) {
    return "; not kept: cuDNN serializes no plan of this engine (" + brief(e.what()) + ")";
  }
  const PlanRecord record{g.key_sha256, cache.identity, label, p.status, build_s, p.runtime_compiled, std::move(blob)};
  return cache.store->save(record) ? "; kept in the plan cache" : "; not kept: the plan cache cannot be written";
}

}  // namespace

PlannedChoice plan_first_of(cudnnHandle_t handle, const std::vector<GraphChoice>& choices, bool allow_tf32,
                            const PlanCacheUse& cache) {
  PlannedChoice out;
  for (out.index = 0; cache.store && cache.load && out.index < choices.size(); ++out.index) {
    const GraphChoice& c = choices[out.index];
    out.planned = load(handle, build_keyed(c.build, allow_tf32, cache), c.label, cache);
    if (out.planned.plan) {
      out.statuses.emplace_back(out.index, out.planned.status);
      return out;
    }
  }
  PlanCacheUse searching = cache;
  searching.load = false;  // looked for above
  for (out.index = 0; out.index < choices.size(); ++out.index) {
    out.planned = plan_graph(handle, choices[out.index].build, allow_tf32, choices[out.index].label, searching);
    out.statuses.emplace_back(out.index, out.planned.status);
    if (out.planned.plan) return out;
  }
  return out;
}

PlannedGraph plan_graph(cudnnHandle_t handle, const std::function<Graph()>& build, bool allow_tf32,
                        const std::string& label, const PlanCacheUse& cache) {
  Stopwatch clock;
  const KeyedGraph g = build_keyed(build, allow_tf32, cache);
  if (PlannedGraph loaded = load(handle, g, label, cache); loaded.plan) return loaded;
  PlannedGraph out;
  if (g.refused.empty()) out = search_plan(handle, g.graph, allow_tf32);
  else out.status = g.refused;
  const double build_s = clock.lap();
  if (!out.plan) {  // the refusal's status stays as cuDNN gave it: it is the case's skip reason
    tell(cache, label, PlanSource::refused, build_s, out);
    return out;
  }
  const std::string kept = keep(out, g, label, build_s, cache);
  out.status += "; built in " + seconds_text(build_s) + kept;
  tell(cache, label, PlanSource::built, build_s, out);
  return out;
}

}  // namespace nb::cudnn_backend
