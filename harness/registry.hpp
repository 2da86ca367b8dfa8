#pragma once
// The registry: the explicit table of ops (kernels/ops.cpp builds it) and the lookups the CLI
// needs. No static registration: what is in the table is what exists.
#include <memory>
#include <string>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb {

class Registry {
 public:
  explicit Registry(std::vector<std::unique_ptr<OpSpec>> ops);

  const std::vector<std::unique_ptr<OpSpec>>& ops() const { return ops_; }
  const OpSpec& op(const std::string& name) const;  // throws UsageError naming the known ops
  // The op a problem id belongs to ("rmsnorm_nchw/..." -> rmsnorm_nchw).
  const OpSpec& op_of_problem_id(const std::string& id) const;
  std::vector<std::string> suites() const;  // every suite some named problem belongs to

 private:
  std::vector<std::unique_ptr<OpSpec>> ops_;
};

}  // namespace nb
