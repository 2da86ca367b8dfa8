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
    for (const auto& v : op->variants())
      out << "  " << std::left << std::setw(17) << v->name() << std::setw(9) << v->kind() << v->idea() << "\n";
    for (const auto& na : op->not_applicable())
      out << "  " << std::setw(17) << ("(" + na.kind + ")") << std::setw(9) << "n/a" << na.reason << "\n";
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

}  // namespace

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
