#include "harness/op_spec.hpp"

#include <stdexcept>

#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"

namespace nb {

void draw_stored_inputs(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls, Distribution d,
                        std::uint64_t seed, HostTensors& host) {
  op.draw_inputs(p, d, seed, host);
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role != TensorRole::output) round_to_storage(host.data.at(i), decls[i].dtype);
}

void OpSpec::draw_inputs(const Problem& p, Distribution d, std::uint64_t seed, HostTensors& host) const {
  const std::vector<TensorDecl> decls = tensors(p);
  const std::vector<InputDraw> draws = input_draws(p, d);
  if (draws.empty()) throw std::logic_error(name() + " declares no input draws and does not draw its own");
  draw_declared(draws, seed, decls, host);
  for (const InputDraw& draw : draws) round_to_storage(host[draw.tensor], decls.at(std::size_t(draw.tensor)).dtype);
  derive_inputs(p, seed, host);
}

ReferenceConditions OpSpec::reference_program(const Problem&, const ProgramTensors&, const ProgramReference&,
                                              Executor&) const {
  throw std::logic_error(name() + " has no reference program");
}

Variant* OpSpec::find_variant(const std::string& name) const {
  for (const auto& v : variants_)
    if (v->name() == name) return v.get();
  return nullptr;
}

ProblemRules OpSpec::problem_rules() const {
  return {name(), param_decls(), dtypes(), [this](const Params& p) { return check(p); }};
}

Problem OpSpec::make_problem(const Params& given, DType dtype) const {
  return nb::make_problem(problem_rules(), given, dtype);
}

Problem OpSpec::parse_problem_id(const std::string& id) const {
  return nb::parse_problem_id(problem_rules(), id);
}

std::vector<Problem> OpSpec::problems_in(const std::string& suite) const {
  std::vector<Problem> out;
  for (const auto& np : named_problems()) {
    bool member = suite.empty();
    for (const auto& s : np.suites) member = member || s == suite;
    if (member)
      for (DType t : np.dtypes) out.push_back(make_problem(np.params, t));
  }
  return out;
}

}  // namespace nb
