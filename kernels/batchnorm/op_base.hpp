#pragma once
// What the forward and backward BatchNorm ops share: parameters and their checks, the named
// problems, and the reduction length (the count per channel) that sets their tolerance growth.
#include "harness/op_spec.hpp"
#include "kernels/batchnorm/shape.hpp"

namespace nb::bn {

class BatchNormOpBase : public OpSpec {
 public:
  std::vector<ParamDecl> param_decls() const override { return bn::param_decls(); }
  std::string check(const Params& p) const override { return bn::check_params(p); }
  std::vector<NamedProblem> named_problems() const override { return bn::named_problems(bn::Pass::forward); }
  double reduction_length(const Problem& p) const override { return double(shape_of(p).count()); }
};

}  // namespace nb::bn
