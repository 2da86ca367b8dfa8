#pragma once
// The tolerance each tensor of one trial is judged with: the op's base tolerance for the dtype,
// scaled by the instance's condition (OpSpec::condition or the reference's own), the reduction
// growth, and the tensor's own condition where it is larger; plus, where the precision rounds a
// GEMM's operands, OpSpec::operand_rounding times the tensor's operand amplification
// (docs/tolerance.md).
#include <vector>

#include "harness/op_spec.hpp"
#include "harness/program_tensors.hpp"

namespace nb {

struct TrialTolerances {
  std::vector<Tolerance> per_tensor;  // in declaration order
  double worst_condition = 1;         // the largest factor applied to any tensor
  double worst_amplification = 0;     // the largest operand amplification applied (0: no operand rounding)
};

TrialTolerances trial_tolerances(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                 const ReferenceConditions& conditions);

// The conditions of a host reference: OpSpec::condition and tensor_condition on the host copies.
ReferenceConditions host_conditions(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                    const HostTensors& inputs, const ReferenceTensors& reference);

// The two above: the tolerances of a trial whose reference was computed on the host.
TrialTolerances trial_tolerances(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                 const HostTensors& inputs, const ReferenceTensors& reference);

}  // namespace nb
