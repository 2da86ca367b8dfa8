// cudnnBatchNormalizationForwardTraining, the call PyTorch eager makes: the library baseline of
// the training forward, timed and validated like the kernels.
#include <memory>

#include "kernels/batchnorm/cudnn_batchnorm.hpp"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"

namespace nb::batchnorm_train {
namespace {

class CudnnForward final : public bn::CudnnBatchNorm {
 public:
  std::string idea() const override {
    return "cudnnBatchNormalizationForwardTraining (SPATIAL 2d, PER_ACTIVATION 1d), factor = momentum";
  }
  void launch(const Problem&, const DeviceTensors& t, void*, cudaStream_t stream) override {
    bind(stream);
    // cuDNN: running = factor*batch + (1 - factor)*running, with the unbiased variance for the
    // running variance; saved "inverse variance" is 1/sqrt(var_biased + eps).
    NB_CUDNN_SUPPORTED(cudnnBatchNormalizationForwardTraining(
        handle_, mode_, &one_, &zero_, data_, t.in(kX), data_, t.out(kY), param_, t.in(kGamma), t.in(kBeta),
        shape_.momentum, t.out(kRunningMean), t.out(kRunningVar), shape_.eps, t.out(kSaveMean),
        t.out(kSaveInvstd)));
  }
};

}  // namespace

std::unique_ptr<Variant> make_cudnn_variant() { return std::make_unique<CudnnForward>(); }

}  // namespace nb::batchnorm_train
