#pragma once
// A minimal op and variants for engine tests that need no kernel and no GPU: y = x over n
// elements, with an optional group count g (n divisible by g) and an eps, so that parameter
// defaults, ranges and relational checks can be exercised too.
#include "harness/op_spec.hpp"

namespace nb::test {

class CopyOp final : public OpSpec {
 public:
  CopyOp();
  std::string name() const override { return "copy_op"; }
  std::string formula() const override { return "y = x"; }
  std::vector<ParamDecl> param_decls() const override;
  std::string check(const Params& p) const override;
  std::vector<NamedProblem> named_problems() const override;
  std::vector<TensorDecl> tensors(const Problem& p) const override;
  void draw_inputs(const Problem& p, Distribution d, std::uint64_t seed, HostTensors& t) const override;
  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override;
  WorkModel work(const Problem& p) const override;
};

}  // namespace nb::test
