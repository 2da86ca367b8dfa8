#pragma once
// Test-side helpers: validate variants of one problem through the harness's own pieces, and
// build single cases for the runner.
#include <cuda_runtime.h>

#include <vector>

#include "harness/registry.hpp"
#include "harness/run/case_outcome.hpp"
#include "harness/run/run_case.hpp"
#include "harness/validation/validation_plan.hpp"

namespace nb::test {

const Registry& registry();

// Prepares and validates each variant on the problem (skipping what supports() refuses).
std::vector<CaseOutcome> validate_variants(const OpSpec& op, const Problem& problem,
                                           const std::vector<Variant*>& variants, const ValidationPlan& plan);

ValidationPlan every_distribution(int trials = 3);

// "uniform01: y: 1 unwritten element ..." for failure messages.
std::string describe(const CaseOutcome& o);

}  // namespace nb::test
