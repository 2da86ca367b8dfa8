#include "harness/validation/trial_tolerance.hpp"

#include <algorithm>

namespace nb {

TrialTolerances trial_tolerances(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                 const ReferenceConditions& conditions) {
  const Tolerance base = op.tolerance(p), operand = op.operand_rounding(p);
  const bool rounds_operands = operand.normwise > 0 || operand.elementwise > 0;
  const double condition = conditions.instance * reduction_growth(op.reduction_length(p));
  TrialTolerances t;
  for (std::size_t i = 0; i < decls.size(); ++i) {
    const double effective = condition * std::max(1.0, conditions.of(i));
    Tolerance bound = base.scaled(effective);
    const double amplification = rounds_operands ? conditions.amplification_of(i) : 0.0;
    bound.normwise += operand.normwise * amplification;
    bound.elementwise += operand.elementwise * amplification;
    t.per_tensor.push_back(plus_rounding(bound, storage_rounding(decls[i].dtype)));
    t.worst_condition = std::max(t.worst_condition, effective);
    t.worst_amplification = std::max(t.worst_amplification, amplification);
  }
  return t;
}

ReferenceConditions host_conditions(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                    const HostTensors& inputs, const ReferenceTensors& reference) {
  ReferenceConditions c;
  c.instance = std::max(op.condition(p, inputs), reference.condition);
  for (std::size_t i = 0; i < decls.size(); ++i)
    c.per_tensor.push_back(op.tensor_condition(p, static_cast<int>(i), inputs, reference));
  c.operand_amplification = reference.operand_amplification;
  return c;
}

TrialTolerances trial_tolerances(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                 const HostTensors& inputs, const ReferenceTensors& reference) {
  return trial_tolerances(op, p, decls, host_conditions(op, p, decls, inputs, reference));
}

}  // namespace nb
