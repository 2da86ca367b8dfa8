#include "harness/run/launch_recording.hpp"

#include "harness/errors.hpp"
#include "harness/launches/launch_capture.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/run/context_loss.hpp"

namespace nb {

void record_launches(const Problem& problem, const std::vector<Variant*>& variants, std::vector<CaseOutcome>& outcomes,
                     const ProblemBuffers& buffers, cudaStream_t stream) {
  for (std::size_t k = 0; k < variants.size(); ++k) {
    CaseOutcome& outcome = outcomes[k];
    if (!outcome.runnable()) continue;
    Variant& variant = *variants[k];
    Stopwatch clock;
    const std::string name = nvtx_case_name(problem.op, variant.name(), problem.id());
    try {
      NvtxRange range(name);
      NvtxRange phase("launches");
      outcome.launches = capture_launches(
          [&] { variant.launch(problem, buffers.tensors, buffers.workspace.get(), stream); }, stream);
    } catch (const DeviceError& e) {
      if (cuda_context_lost()) throw DeviceError(name + " left the CUDA context unusable in its recorded launch: " + e.what());
      cudaGetLastError();  // the next case's launch check must not see it
      outcome.launches = CaseLaunches::unavailable(std::string("the recorded launch failed: ") + e.what());
    }
    outcome.phases.launches_s += clock.lap();
  }
}

void mark_launches_not_recorded(std::vector<CaseOutcome>& outcomes, const std::string& why) {
  for (CaseOutcome& o : outcomes)
    if (o.runnable()) o.launches = CaseLaunches::unavailable(why);
}

}  // namespace nb
