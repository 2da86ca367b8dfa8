// cudnn: cuDNN's RMSNorm as the library baseline, a backend graph with one NORM_FORWARD operation
// in CUDNN_RMS_NORM mode (baselines/cudnn/norm_cudnn): x as [M, N, 1, 1], w as its scale.
#include "baselines/cudnn/norm_cudnn_variant.hpp"
#include "kernels/rows/rmsnorm_rows/spec.hpp"

namespace nb::rmsnorm_rows {

std::unique_ptr<Variant> make_cudnn_variant() {
  return make_row_norm_cudnn_variant(RowNormGraph::rms_forward, [](const Problem& p, const DeviceTensors& t) {
    RowNormArgs a;
    a.x = t.ptr<const void>(X);
    a.scale = t.ptr<const void>(W);
    a.y = t.ptr<void>(Y);
    a.eps = static_cast<float>(p.real("eps"));
    return a;
  });
}

}  // namespace nb::rmsnorm_rows
