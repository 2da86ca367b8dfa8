#pragma once
// A candidate library as a variant: the harness validates and times it exactly like a built-in
// one. Each call builds the C descriptors of include/normbench/candidate.h (tensors in the op's
// declared order, the problem's parameters by name), and each launch runs with the allocation
// watch armed (harness/candidate/alloc_watch.hpp).
#include <string>
#include <vector>

#include "harness/candidate/candidate_library.hpp"
#include "harness/op_spec.hpp"

namespace nb {

class CandidateVariant final : public Variant {
 public:
  CandidateVariant(std::string name, CandidateLibrary library, const OpSpec& op, ExternalSource source);

  std::string name() const override { return name_; }
  std::string kind() const override { return "external"; }
  std::string idea() const override { return "candidate kernel from " + source_.source; }
  const ExternalSource* external() const override { return &source_; }

  Support supports(const Problem& p) const override;
  std::size_t workspace_bytes(const Problem& p) const override;
  void prepare(const Problem& p) override;
  void launch(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) override;

  // Allocation calls seen inside launch() so far, and the first one's function name.
  long allocations_in_launch() const { return allocations_; }
  const std::string& first_allocation() const { return first_allocation_; }

 private:
  // The C view of a problem; the strings it points to live in `p`.
  struct ProblemView {
    std::vector<nb_param> params;
    std::string id;
    nb_problem problem{};
  };
  ProblemView view_of(const Problem& p) const;

  std::string name_;
  CandidateLibrary library_;
  const OpSpec& op_;
  ExternalSource source_;
  long allocations_ = 0;
  std::string first_allocation_;
};

// The descriptors of a problem's tensors in declaration order (shape, contiguous strides, name).
std::vector<nb_tensor> tensor_descriptors(const std::vector<TensorDecl>& decls, const DeviceTensors& t);

}  // namespace nb
