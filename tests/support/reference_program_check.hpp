#pragma once
// The device path of one op's trial, checked piece by piece against the host's (docs/validation.md):
// the declared draws bit for bit, the derived inputs to float rounding, the reference program's
// values with the Eigen reference's, its conditions with the host's, Eigen's audit passing, and the
// audit catching a planted error. The CPU tests run it with the host executor, the GPU tests with
// the device's: the same program either way.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "harness/op_spec.hpp"
#include "harness/validation/reference_audit.hpp"

namespace nb::test {

// Memory on the executor's side.
class ProgramMemory {
 public:
  virtual ~ProgramMemory() = default;
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void to_host(void* host, const void* data, std::size_t bytes) = 0;
  virtual void from_host(void* data, const void* host, std::size_t bytes) = 0;
};

std::unique_ptr<ProgramMemory> host_memory();

// What the check measured, for the tests' own summaries.
struct ProgramAgreement {
  double worst_normwise = 0;     // program against Eigen, over every output (relative to its norm)
  double worst_elementwise = 0;  // with a floor of 1e-3 of the tensor's rms
  double worst_condition_gap = 0;
};

// Which distributions get the audit's checks (its budgets pass, the executor's slices hold the host's
// draws, a wrong draw and a planted reference error are caught): every one, or `normal` and
// `special` alone. The audit judges on the host whatever the executor; what depends on the
// executor is its gathering of slices, which no value changes, and its draws, compared whole on
// every distribution before. So the device tests take the second (`special` for its non-finite
// plants and the wrong draw; most of the device test's seconds were the four other distributions'
// host draws and Eigen audits) and the host executor's tests the first.
enum class AuditChecks { every_distribution, normal_and_special };

// gtest expectations throughout; returns the figures. `audit` false leaves out the audit's checks.
ProgramAgreement check_reference_program(const OpSpec& op, const Problem& p, Distribution d, std::uint64_t seed,
                                         Executor& ex, ProgramMemory& memory, bool audit = true);

// The check on every distribution (seed 5000 + its index), each in fresh memory from `memory`, the
// audit's on those `audit` names; prints the worst figures, labelled `where`.
void check_every_distribution(const OpSpec& op, const Problem& p, Executor& ex,
                              const std::function<std::unique_ptr<ProgramMemory>()>& memory, const char* where,
                              AuditChecks audit = AuditChecks::every_distribution);

}  // namespace nb::test
