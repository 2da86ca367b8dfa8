// cudnn: cuDNN's LayerNorm as the library baseline, a backend graph with one NORM_FORWARD
// operation in CUDNN_LAYER_NORM mode, training phase (baselines/cudnn/norm_cudnn): x as
// [M, N, 1, 1], w and b as its scale and bias, mean and rstd as cuDNN's mean and inv_variance.
#include "baselines/cudnn/norm_cudnn_variant.hpp"
#include "kernels/rows/layernorm_rows/spec.hpp"

namespace nb::layernorm_rows {

std::unique_ptr<Variant> make_cudnn_variant() {
  return make_row_norm_cudnn_variant(RowNormGraph::layer_forward, [](const Problem& p, const DeviceTensors& t) {
    RowNormArgs a;
    a.x = t.ptr<const void>(X);
    a.scale = t.ptr<const void>(W);
    a.bias = t.ptr<const void>(B);
    a.y = t.ptr<void>(Y);
    a.mean = t.ptr<float>(MEAN);
    a.rstd = t.ptr<float>(RSTD);
    a.eps = static_cast<float>(p.real("eps"));
    return a;
  });
}

}  // namespace nb::layernorm_rows
