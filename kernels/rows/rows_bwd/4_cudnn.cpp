// cudnn: cuDNN's RMSNorm or LayerNorm backward as the library baseline, a backend graph with one
// NORM_BACKWARD operation in CUDNN_RMS_NORM or CUDNN_LAYER_NORM mode (baselines/cudnn/norm_cudnn):
// dx, dw and (LayerNorm) db, cuDNN's dscale and dbias, from x, w, dy and the saved mean and rstd
// (cuDNN's inv_variance).
#include "baselines/cudnn/norm_cudnn_variant.hpp"
#include "kernels/rows/rows_bwd/rows_bwd.hpp"

namespace nb::rows_bwd {

std::unique_ptr<Variant> make_cudnn_variant(const Layout& layout) {
  const RowNormGraph graph = layout.layer() ? RowNormGraph::layer_backward : RowNormGraph::rms_backward;
  return make_row_norm_cudnn_variant(graph, [layout](const Problem&, const DeviceTensors& t) {
    RowNormArgs a;
    a.x = t.ptr<const void>(layout.x);
    a.scale = t.ptr<const void>(layout.w);
    a.dy = t.ptr<const void>(layout.dy);
    a.rstd = t.ptr<float>(layout.rstd);
    a.dx = t.ptr<void>(layout.dx);
    a.dscale = t.ptr<void>(layout.dw);
    if (layout.layer()) {
      a.mean = t.ptr<float>(layout.mean);
      a.dbias = t.ptr<void>(layout.db);
    }
    return a;
  });
}

}  // namespace nb::rows_bwd
