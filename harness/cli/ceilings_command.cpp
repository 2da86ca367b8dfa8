#include <ostream>

#include "harness/cli/ceilings_output.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/timing/bandwidth_ceiling.hpp"
#include "harness/timing/stream_ceilings.hpp"
#include "harness/errors.hpp"

namespace nb {

int ceilings_command(int device, bool json, std::ostream& out) {
  GpuInfo gpu = query_gpu(device);
  const CudaStream stream;
  const BandwidthCeiling copy = measure_bandwidth_ceiling(gpu, stream.get());
  const std::vector<PatternCeiling> patterns = measure_stream_ceilings(stream.get());
  if (json)
    out << ceilings_to_json(gpu, copy, patterns).dump(2) << "\n";
  else
    out << render_ceilings_text(gpu, copy, patterns);
  return kExitOk;
}

}  // namespace nb
