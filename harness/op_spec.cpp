#include "harness/op_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"

namespace nb {
namespace {

// The shortest text that reads back as v: 4.5 stays "4.5" and 4.0000001 stays "4.0000001".
std::string shortest_text(double v) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, v);
  return error == std::errc() ? std::string(text, end) : std::to_string(v);
}

}  // namespace

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

Problem OpSpec::make_problem(const Params& given, DType dtype) const {
  const std::vector<ParamDecl> decls = param_decls();
  for (const auto& [key, value] : given.values()) {
    bool known = false;
    for (const auto& d : decls) known = known || d.name == key;
    if (!known) {
      std::string names;
      for (const auto& d : decls) names += (names.empty() ? "" : ", ") + d.name;
      throw UsageError(name() + ": unknown parameter '" + key + "' (parameters: " + names + ")");
    }
  }
  const std::vector<DType> accepted = dtypes();
  if (std::find(accepted.begin(), accepted.end(), dtype) == accepted.end()) {
    std::string names;
    for (DType t : accepted) names += (names.empty() ? "" : ", ") + dtype_name(t);
    throw UsageError(name() + ": dtype " + dtype_name(dtype) + " is not supported (supported: " + names + ")");
  }
  Problem p;
  p.op = name();
  p.dtype = dtype;
  for (const auto& d : decls) {
    if (!given.has(d.name) && d.required)
      throw UsageError(name() + ": parameter '" + d.name + "' is required (" + d.help + ")");
    double v = given.has(d.name) ? given.real(d.name) : d.default_value;
    const std::string* text = given.text(d.name);  // as the user wrote it, when parsed
    if (d.integer && (text ? !is_plain_integer(*text) : v != std::floor(v)))
      throw UsageError(name() + ": parameter '" + d.name + "' must be an integer in plain decimal digits, got '" +
                       (text ? *text : shortest_text(v)) + "'");
    if (!(v >= d.min_value && v <= d.max_value)) {
      std::ostringstream msg;
      msg << name() << ": parameter '" << d.name << "' = " << (text ? *text : format_param(d, v)) << " is out of range ["
          << format_param(d, d.min_value) << ", " << format_param(d, d.max_value) << "] (" << d.help << ")";
      throw UsageError(msg.str());
    }
    p.params.set(d.name, v);
    // The name lists every required parameter and any optional one that differs from its default.
    if (d.required || v != d.default_value)
      p.name += (p.name.empty() ? "" : "_") + d.name + format_param(d, v);
  }
  std::string why = check(p.params);
  if (!why.empty()) throw UsageError(name() + ": " + why);
  return p;
}

Problem OpSpec::parse_problem_id(const std::string& id) const {
  std::string rest = id;
  std::string prefix = name() + "/";
  if (rest.rfind(prefix, 0) == 0) rest = rest.substr(prefix.size());
  DType dtype = DType::f32;
  std::size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    dtype = parse_dtype(rest.substr(slash + 1));
    rest = rest.substr(0, slash);
  }
  std::string assignments;  // "m4_n8" as "m=4,n=8": parsed as --params is, the texts kept
  std::stringstream tokens(rest);
  std::string token;
  while (std::getline(tokens, token, '_')) {
    std::size_t split = 0;
    while (split < token.size() && std::isalpha(static_cast<unsigned char>(token[split]))) ++split;
    if (split == 0 || split == token.size())
      throw UsageError("bad problem id '" + id + "': '" + token + "' is not <param><value>");
    assignments += (assignments.empty() ? "" : ",") + token.substr(0, split) + "=" + token.substr(split);
  }
  return make_problem(Params::parse(assignments), dtype);
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
