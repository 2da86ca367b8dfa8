// Fuzz target: the input as a problem id (`--problem ID`, the problem of a report row), parsed
// under each fixture op (parse_problem_id). A problem parsed is named by an id that parses back to
// the same problem. A UsageError is the expected refusal; anything else thrown, a crash, a broken
// property or a sanitizer report is a finding.
#include <cstdint>

#include "fuzz_support.hpp"
#include "harness/errors.hpp"
#include "problem_rules_fixture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string id = nb::fuzz::argument_text(data, size);
  static const std::vector<nb::ProblemRules> fixture = nb::fuzz::problem_rules_fixture();
  for (const nb::ProblemRules& rules : fixture) {
    nb::Problem problem;
    try {
      problem = nb::parse_problem_id(rules, id);
    } catch (const nb::UsageError&) {
      continue;
    }
    nb::fuzz::require_id_rebuilds(rules, problem);
  }
  return 0;
}
