// cudnnBatchNormalizationBackward with the saved mean and invstd, the call PyTorch eager makes:
// the library baseline of the backward, timed and validated like the kernels.
#include <memory>

#include "kernels/batchnorm/cudnn_batchnorm.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"

namespace nb::batchnorm_bwd {
namespace {

class CudnnBackward final : public bn::CudnnBatchNorm {
 public:
  std::string idea() const override {
    return "cudnnBatchNormalizationBackward with the saved mean/invstd (SPATIAL 2d, PER_ACTIVATION 1d)";
  }
  void launch(const Problem&, const DeviceTensors& t, void*, cudaStream_t stream) override {
    bind(stream);
    NB_CUDNN_SUPPORTED(cudnnBatchNormalizationBackward(
        handle_, mode_, &one_, &zero_, &one_, &zero_, data_, t.in(kX), data_, t.in(kDy), data_, t.out(kDx), param_,
        t.in(kGamma), t.out(kDgamma), t.out(kDbeta), shape_.eps, t.in(kSaveMean), t.in(kSaveInvstd)));
  }
};

}  // namespace

std::unique_ptr<Variant> make_cudnn_variant() { return std::make_unique<CudnnBackward>(); }

}  // namespace nb::batchnorm_bwd
