#include "harness/registry.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "harness/errors.hpp"

namespace nb {

Registry::Registry(std::vector<std::unique_ptr<OpSpec>> ops) : ops_(std::move(ops)) {
  std::set<std::string> names;
  for (const auto& op : ops_) {
    if (!names.insert(op->name()).second) throw std::logic_error("op registered twice: " + op->name());
    std::set<std::string> variants;
    for (const auto& v : op->variants())
      if (!variants.insert(v->name()).second)
        throw std::logic_error("variant registered twice: " + op->name() + "/" + v->name());
  }
}

const OpSpec& Registry::op(const std::string& name) const {
  for (const auto& op : ops_)
    if (op->name() == name) return *op;
  std::string known;
  for (const auto& op : ops_) known += (known.empty() ? "" : ", ") + op->name();
  throw UsageError("unknown op '" + name + "' (known: " + known + ")");
}

const OpSpec& Registry::op_of_problem_id(const std::string& id) const {
  return op(id.substr(0, id.find('/')));
}

std::vector<std::string> Registry::suites() const {
  std::set<std::string> all;
  for (const auto& op : ops_)
    for (const auto& np : op->named_problems()) all.insert(np.suites.begin(), np.suites.end());
  return {all.begin(), all.end()};
}

}  // namespace nb
