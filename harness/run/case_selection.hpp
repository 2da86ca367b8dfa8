#pragma once
// Turns the CLI's filters (ops, variants, suite, problem ids, custom parameters) into the list
// of cases to run. Unknown names and empty selections are usage errors, never silent no-ops.
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "harness/run/run_case.hpp"

namespace nb {

struct Selection {
  std::vector<std::string> ops;       // empty: every op (of the suite)
  std::vector<std::string> variants;  // empty: every variant
  std::vector<std::string> problems;  // problem ids; they replace the suite
  std::string suite;                  // used when no problem ids and no params are given
  std::string params;                 // "n=3,c=65,h=7,w=9": one custom problem of the one selected op
  std::string dtype;  // "": each named problem's own dtypes (fp32 for --params); with problem ids, theirs
};

std::vector<RunCase> select_cases(const Registry& registry, const Selection& selection);

}  // namespace nb
