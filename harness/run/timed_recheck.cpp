#include "harness/run/timed_recheck.hpp"

#include "harness/cuda_check.hpp"
#include "harness/run/trial_reference.hpp"

namespace nb {

DistributionVerdict recheck_after_timing(const RunCase& c, const ProblemBuffers& b, cudaStream_t stream,
                                         std::uint64_t seed) {
  const Distribution dist = Distribution::uniform01;
  const std::string why_host = why_no_device_reference(*c.op, c.problem);
  std::unique_ptr<TrialReference> reference =
      why_host.empty() ? make_device_trial_reference(*c.op, c.problem, b.decls, stream, AuditBudget{})
                       : make_host_trial_reference(*c.op, c.problem, b.decls, stream, why_host);
  ProblemPhases unused;
  reference->prepare(b, dist, seed, unused);
  const auto before = b.input_hashes(stream);
  b.poison_outputs(stream, 1);
  b.scribble_workspace(stream, 1);
  c.variant->launch(c.problem, b.tensors, b.workspace.get(), stream);
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const bool modified = b.input_hashes(stream) != before;
  DistributionVerdict verdict;
  verdict.distribution = dist;
  verdict.add_trial(seed, reference->judge(modified));
  if (!verdict.passed) verdict.failure = "after the timed loop: " + verdict.failure;
  return verdict;
}

}  // namespace nb
