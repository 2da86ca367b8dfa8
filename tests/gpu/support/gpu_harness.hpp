#pragma once
// Test-side helpers: validate variants of one problem through the harness's own pieces, and
// build single cases for the runner.
#include <cuda_runtime.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "harness/run/case_outcome.hpp"
#include "harness/run/phase_times.hpp"
#include "harness/run/run_case.hpp"
#include "harness/run/runner.hpp"
#include "harness/validation/validation_plan.hpp"

namespace nb::test {

const Registry& registry();

// Prepares and validates each variant on the problem (skipping what supports() refuses), against
// the device reference where the op has one, unless plan.why_host names a reason to use the host's.
// `phases`, when given, receives the problem's shared phases; `placement` places the tensors.
std::vector<CaseOutcome> validate_variants(const OpSpec& op, const Problem& problem,
                                           const std::vector<Variant*>& variants, const ValidationPlan& plan,
                                           ProblemPhases* phases = nullptr,
                                           TensorPlacement placement = TensorPlacement::aligned);

ValidationPlan every_distribution(int trials = 3);

// The runner's options for a quick validation without timing: one trial of `distribution`, no
// progress lines.
RunOptions validate_only_options(Distribution distribution = Distribution::uniform01);

// "uniform01: y: 1 unwritten element ..." for failure messages.
std::string describe(const CaseOutcome& o);

// Validates the named variants of the problem on `distributions` (ValidationPlan's default trials):
// each must run, pass every distribution and leave no element unwritten (gtest expectations).
void expect_variants_pass(const OpSpec& op, const Problem& problem, const std::vector<std::string>& variants,
                          const std::vector<Distribution>& distributions);

// ||got - ref|| / ||ref|| over every element (the absolute norm when ref is all zero); a NaN
// anywhere (an unwritten, poisoned element) makes it NaN, which no bound accepts.
double normwise(const std::vector<float>& got, const std::vector<double>& ref);

// A rows problem of a row op, named "bf16_m70_n131072" in test ids.
struct RowsCase {
  DType dtype;
  std::int64_t m, n;
};
std::string rows_case_name(const RowsCase& c);
// gtest prints a parameter with this (its name), never as a dump of its bytes.
void PrintTo(const RowsCase& c, std::ostream* out);

}  // namespace nb::test
