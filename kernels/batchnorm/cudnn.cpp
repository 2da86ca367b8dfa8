#include "kernels/batchnorm/cudnn.hpp"

#include <cudnn.h>

#include "harness/library_check.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"
#include "kernels/batchnorm/shape.hpp"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"

// The BatchNorm entry points are deprecated in cuDNN 9 (the graph API replaces them) but are
// still what PyTorch eager calls; keep them and silence the warning here only.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace nb::bn {
namespace {

// Handle and descriptors, built in prepare() so that launch() only sets the stream and calls.
class CudnnBatchNorm : public Variant {
 public:
  ~CudnnBatchNorm() override {
    if (param_) cudnnDestroyTensorDescriptor(param_);
    if (data_) cudnnDestroyTensorDescriptor(data_);
    if (handle_) cudnnDestroy(handle_);
  }
  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }

  void prepare(const Problem& p) override {
    shape_ = shape_of(p);
    if (!handle_) NB_CUDNN_CHECK(cudnnCreate(&handle_));
    if (!data_) NB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&data_));
    if (!param_) NB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&param_));
    // 1d: (N, C) as N x C x 1 x 1 with PER_ACTIVATION (statistics over N), the same math as SPATIAL.
    mode_ = shape_.is_1d() ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
    const int h = int(p.dim("h")), w = int(p.dim("w"));
    NB_CUDNN_SUPPORTED(cudnnSetTensor4dDescriptor(data_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(shape_.n),
                                                  int(shape_.c), h, w));
    NB_CUDNN_SUPPORTED(cudnnDeriveBNTensorDescriptor(param_, data_, mode_));
  }

 protected:
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t data_ = nullptr, param_ = nullptr;
  cudnnBatchNormMode_t mode_ = CUDNN_BATCHNORM_SPATIAL;
  Shape shape_;
  const float one_ = 1.0f, zero_ = 0.0f;

  void bind(cudaStream_t stream) { NB_CUDNN_CHECK(cudnnSetStream(handle_, stream)); }
};

class CudnnForward final : public CudnnBatchNorm {
 public:
  std::string idea() const override {
    return "cudnnBatchNormalizationForwardTraining (SPATIAL 2d, PER_ACTIVATION 1d), factor = momentum";
  }
  void launch(const Problem&, const DeviceTensors& t, void*, cudaStream_t stream) override {
    using namespace batchnorm_train;
    bind(stream);
    // cuDNN: running = factor*batch + (1 - factor)*running, with the unbiased variance for the
    // running variance; saved "inverse variance" is 1/sqrt(var_biased + eps).
    NB_CUDNN_SUPPORTED(cudnnBatchNormalizationForwardTraining(
        handle_, mode_, &one_, &zero_, data_, t.in(kX), data_, t.out(kY), param_, t.in(kGamma), t.in(kBeta),
        shape_.momentum, t.out(kRunningMean), t.out(kRunningVar), shape_.eps, t.out(kSaveMean),
        t.out(kSaveInvstd)));
  }
};

class CudnnBackward final : public CudnnBatchNorm {
 public:
  std::string idea() const override {
    return "cudnnBatchNormalizationBackward with the saved mean/invstd (SPATIAL 2d, PER_ACTIVATION 1d)";
  }
  void launch(const Problem&, const DeviceTensors& t, void*, cudaStream_t stream) override {
    using namespace batchnorm_bwd;
    bind(stream);
    NB_CUDNN_SUPPORTED(cudnnBatchNormalizationBackward(
        handle_, mode_, &one_, &zero_, &one_, &zero_, data_, t.in(kX), data_, t.in(kDy), data_, t.out(kDx), param_,
        t.in(kGamma), t.out(kDgamma), t.out(kDbeta), shape_.eps, t.in(kSaveMean), t.in(kSaveInvstd)));
  }
};

}  // namespace

std::unique_ptr<Variant> make_cudnn_forward_variant() { return std::make_unique<CudnnForward>(); }
std::unique_ptr<Variant> make_cudnn_backward_variant() { return std::make_unique<CudnnBackward>(); }

}  // namespace nb::bn
