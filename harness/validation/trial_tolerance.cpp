#include "harness/validation/trial_tolerance.hpp"

#include <algorithm>

namespace nb {

TrialTolerances trial_tolerances(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                 const HostTensors& inputs, const ReferenceTensors& reference) {
  const Tolerance base = op.tolerance(p);
  const double condition =
      std::max(op.condition(p, inputs), reference.condition) * reduction_growth(op.reduction_length(p));
  TrialTolerances t;
  for (std::size_t i = 0; i < decls.size(); ++i) {
    const double own = op.tensor_condition(p, static_cast<int>(i), inputs, reference);
    const double effective = condition * std::max(1.0, own);
    t.per_tensor.push_back(plus_rounding(base.scaled(effective), storage_rounding(decls[i].dtype)));
    t.worst_condition = std::max(t.worst_condition, effective);
  }
  return t;
}

}  // namespace nb
