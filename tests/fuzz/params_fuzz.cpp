// Fuzz target: the input as the text of `--params` (Params::parse), then the problem it asks for
// under each fixture op and dtype (make_problem, as `normbench run --op OP --params TEXT` builds it).
// A problem built is named by an id that rebuilds it: the same id and the same parameter values.
// A UsageError is the expected refusal; anything else thrown, a crash, a broken property or a
// sanitizer report is a finding.
#include <cstdint>

#include "fuzz_support.hpp"
#include "harness/errors.hpp"
#include "problem_rules_fixture.hpp"

namespace {

const nb::DType kDtypes[] = {nb::DType::f32, nb::DType::tf32, nb::DType::bf16, nb::DType::f16};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nb::Params params;
  try {
    params = nb::Params::parse(nb::fuzz::argument_text(data, size));
  } catch (const nb::UsageError&) {
    return 0;
  }
  static const std::vector<nb::ProblemRules> fixture = nb::fuzz::problem_rules_fixture();
  for (const nb::ProblemRules& rules : fixture)
    for (nb::DType dtype : kDtypes) {
      nb::Problem problem;
      try {
        problem = nb::make_problem(rules, params, dtype);
      } catch (const nb::UsageError&) {
        continue;
      }
      nb::fuzz::require_id_rebuilds(rules, problem);
    }
  return 0;
}
