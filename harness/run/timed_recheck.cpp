#include "harness/run/timed_recheck.hpp"

#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/validation/trial_tolerance.hpp"

namespace nb {
DistributionVerdict recheck_after_timing(const RunCase& c, const ProblemBuffers& b, cudaStream_t stream,
                                         std::uint64_t seed) {
  const Distribution dist = Distribution::uniform01;
  HostTensors inputs = allocate_host_inputs(b.decls);
  draw_stored_inputs(*c.op, c.problem, b.decls, dist, seed, inputs);
  ReferenceTensors reference = allocate_references(b.decls);
  c.op->reference(c.problem, inputs, reference);
  for (const auto& values : reference.data) reference.rms.push_back(finite_rms(values));
  const TrialTolerances tolerances = trial_tolerances(*c.op, c.problem, b.decls, inputs, reference);
  b.upload(inputs, {TensorRole::input, TensorRole::inout}, stream);
  const auto before = b.input_hashes(stream);
  b.poison_outputs(stream);
  c.variant->launch(c.problem, b.tensors, b.workspace.get(), stream);
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
  HostTensors results = allocate_host_results(b.decls);
  b.download_results(results, stream);
  const bool modified = b.input_hashes(stream) != before;
  DistributionVerdict verdict;
  verdict.distribution = dist;
  const auto tolerance_of = [&](int i) { return tolerances.per_tensor.at(static_cast<std::size_t>(i)); };
  verdict.add_trial(seed, judge_trial(b.decls, results, reference, tolerance_of, modified));
  if (!verdict.passed) verdict.failure = "after the timed loop: " + verdict.failure;
  return verdict;
}

}  // namespace nb
