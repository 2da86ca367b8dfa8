#include <algorithm>
#include <iomanip>
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

bool wanted(const std::vector<std::string>& ops, const std::string& name) {
  if (ops.empty()) return true;
  for (const auto& o : ops)
    if (o == name) return true;
  return false;
}

void list_ops(const Registry& r, const std::vector<std::string>& ops, std::ostream& out) {
  for (const auto& op : r.ops()) {
    if (!wanted(ops, op->name())) continue;
    out << std::left << std::setw(24) << op->name() << op->formula() << "\n";
    out << std::setw(24) << "" << "params:";
    for (const auto& p : op->param_decls())
      out << " " << p.name << (p.required ? "" : "=" + format_param(p, p.default_value));
    out << "\n";
  }
}

void list_variants(const Registry& r, const std::vector<std::string>& ops, std::ostream& out) {
  for (const auto& op : r.ops()) {
    if (!wanted(ops, op->name())) continue;
    out << op->name() << "\n";
    // Columns as wide as the op's longest name and kind, plus a space: a name never runs into its
    // kind (scripts read the listing by fields).
    std::size_t name_width = 16, kind_width = 8;
    for (const auto& v : op->variants()) {
      name_width = std::max(name_width, v->name().size());
      kind_width = std::max(kind_width, v->kind().size());
    }
    for (const auto& na : op->not_applicable()) name_width = std::max(name_width, na.kind.size() + 2);
    const int name_column = int(name_width) + 1, kind_column = int(kind_width) + 1;
    for (const auto& v : op->variants())
      out << "  " << std::left << std::setw(name_column) << v->name() << std::setw(kind_column) << v->kind()
          << v->idea() << "\n";
    for (const auto& na : op->not_applicable())
      out << "  " << std::setw(name_column) << ("(" + na.kind + ")") << std::setw(kind_column) << "n/a" << na.reason
          << "\n";
  }
}

void list_problems(const Registry& r, const std::vector<std::string>& ops, const std::string& suite,
                   std::ostream& out) {
  for (const auto& op : r.ops()) {
    if (!wanted(ops, op->name())) continue;
    for (const auto& np : op->named_problems()) {
      bool member = suite.empty();
      std::string suites;
      for (const auto& s : np.suites) {
        member = member || s == suite;
        suites += (suites.empty() ? "" : ",") + s;
      }
      if (!member) continue;
      for (DType t : np.dtypes)
        out << std::left << std::setw(52) << op->make_problem(np.params, t).id() << std::setw(18) << suites
            << np.note << "\n";
    }
  }
}

const OpSpec& only_op(const Registry& r, const std::vector<std::string>& ops, const std::string& problem) {
  if (!problem.empty()) return r.op_of_problem_id(problem);
  if (ops.size() != 1) throw UsageError("list tensors needs one --op (or a --problem)");
  return r.op(ops.front());
}

}  // namespace

int list_tensors_command(const Registry& registry, const std::vector<std::string>& ops, const std::string& problem,
                         std::ostream& out) {
  const OpSpec& op = only_op(registry, ops, problem);
  Problem p;
  if (!problem.empty()) {
    p = op.parse_problem_id(problem);
  } else {
    std::vector<Problem> quick = op.problems_in("quick");
    if (quick.empty()) quick = op.problems_in("");
    if (quick.empty()) throw UsageError(op.name() + " names no problem; give --problem");
    p = quick.front();
  }
  out << op.name() << ": " << op.formula() << "\n";
  out << "shapes of " << p.id() << "; parameters:";
  for (const auto& [k, v] : p.params.values()) out << " " << k << "=" << v;
  out << "\n";
  const auto decls = op.tensors(p);
  for (std::size_t i = 0; i < decls.size(); ++i)
    out << "  " << i << "  " << std::left << std::setw(16) << decls[i].name << std::setw(8) << role_name(decls[i].role)
        << format_dims(dims_of(decls[i])) << "\n";
  return kExitOk;
}

int list_command(const Registry& registry, const std::string& what, const std::vector<std::string>& ops,
                 const std::string& suite, std::ostream& out) {
  for (const auto& o : ops) registry.op(o);  // unknown names are usage errors
  if (what == "ops")
    list_ops(registry, ops, out);
  else if (what == "variants")
    list_variants(registry, ops, out);
  else if (what == "suites")
    for (const auto& s : registry.suites()) out << s << "\n";
  else if (what == "problems")
    list_problems(registry, ops, suite, out);
  else
    throw UsageError("list: unknown category '" + what + "' (ops, variants, suites, problems)");
  return kExitOk;
}

}  // namespace nb
