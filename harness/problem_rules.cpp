#include "harness/problem_rules.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "harness/errors.hpp"

namespace nb {

Problem make_problem(const ProblemRules& rules, const Params& given, DType dtype) {
  const std::vector<ParamDecl>& decls = rules.decls;
  for (const auto& [key, value] : given.values()) {
    bool known = false;
    for (const auto& d : decls) known = known || d.name == key;
    if (!known) {
      std::string names;
      for (const auto& d : decls) names += (names.empty() ? "" : ", ") + d.name;
      throw UsageError(rules.op + ": unknown parameter '" + key + "' (parameters: " + names + ")");
    }
  }
  if (std::find(rules.dtypes.begin(), rules.dtypes.end(), dtype) == rules.dtypes.end()) {
    std::string names;
    for (DType t : rules.dtypes) names += (names.empty() ? "" : ", ") + dtype_name(t);
    throw UsageError(rules.op + ": dtype " + dtype_name(dtype) + " is not supported (supported: " + names + ")");
  }
  Problem p;
  p.op = rules.op;
  p.dtype = dtype;
  for (const auto& d : decls) {
    if (!given.has(d.name) && d.required)
      throw UsageError(rules.op + ": parameter '" + d.name + "' is required (" + d.help + ")");
    double v = given.has(d.name) ? given.real(d.name) : d.default_value;
    const std::string* text = given.text(d.name);  // as the user wrote it, when parsed
    if (d.integer && (text ? !is_plain_integer(*text) : v != std::floor(v)))
      throw UsageError(rules.op + ": parameter '" + d.name + "' must be an integer in plain decimal digits, got '" +
                       (text ? *text : real_text(v)) + "'");
    if (!(v >= d.min_value && v <= d.max_value)) {
      std::ostringstream msg;
      msg << rules.op << ": parameter '" << d.name << "' = " << (text ? *text : format_param(d, v)) << " is out of range ["
          << format_param(d, d.min_value) << ", " << format_param(d, d.max_value) << "] (" << d.help << ")";
      throw UsageError(msg.str());
    }
    p.params.set(d.name, v);
    // The name lists every required parameter and any optional one that differs from its default.
    if (d.required || v != d.default_value)
      p.name += (p.name.empty() ? "" : "_") + d.name + format_param(d, v);
  }
  std::string why = rules.check ? rules.check(p.params) : "";
  if (!why.empty()) throw UsageError(rules.op + ": " + why);
  return p;
}

Problem parse_problem_id(const ProblemRules& rules, const std::string& id) {
  std::string rest = id;
  std::string prefix = rules.op + "/";
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
  return make_problem(rules, Params::parse(assignments), dtype);
}

}  // namespace nb
