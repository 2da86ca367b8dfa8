// The names of where a plan came from (plan_events.hpp).
#include "harness/plan_cache/plan_events.hpp"

namespace nb {

const char* plan_source_name(PlanSource s) {
  switch (s) {
    case PlanSource::built: return "built";
    case PlanSource::loaded: return "loaded";
    case PlanSource::refused: return "refused";
  }
  return "?";
}

}  // namespace nb
