#pragma once
// The harness's own steps of a device trial, written as programs over an executor
// (harness/validation/executor.hpp) so the CPU tests run them too: the declared input draws, the
// comparison of an output with its float64 reference, and the rms of a reference. Instantiated for
// DeviceExecutor and HostExecutor in harness_programs.cu.
#include <cstdint>
#include <vector>

#include "harness/input_draw.hpp"
#include "harness/stored_value.hpp"
#include "harness/validation/audit_staging.hpp"
#include "harness/validation/error_tally.hpp"
#include "harness/program_tensors.hpp"
#include "harness/slices.hpp"

namespace nb {

// Every draw in `draws` into its tensor, in the tensor's storage, specials planted.
template <class Ex>
void draw_inputs(Ex& ex, const std::vector<InputDraw>& draws, const ProgramTensors& tensors, std::uint64_t seed);

// The tally of every element of `out` (n elements) against `reference`: threads take strided
// elements, their tallies merge in thread order.
template <class Ex>
ErrorTally compare_output(Ex& ex, stored::Tensor out, const double* reference, std::int64_t n, double floor,
                          double absolute);

template <class Ex>
FiniteSquares finite_squares(Ex& ex, const double* reference, std::int64_t n);

// The elements of `runs` of a stored tensor, in order, as float, or of a float64 reference, into
// `host` (run_elements(runs) values from `staging`). One thread per gathered element (a run may be
// a whole channel or a single element of a column). Nothing waits: the run table goes up from
// `staging`'s memory, the executor's scratch is kept in `staging`, and `host` holds the values once
// the executor's arrival() taken after this call has returned.
template <class Ex>
void gather_into(Ex& ex, stored::Tensor tensor, const std::vector<ElementRun>& runs, float* host, AuditStaging& staging);
template <class Ex>
void gather_into(Ex& ex, const double* reference, const std::vector<ElementRun>& runs, double* host,
                 AuditStaging& staging);

}  // namespace nb
