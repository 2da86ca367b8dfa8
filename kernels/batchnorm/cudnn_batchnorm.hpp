#pragma once
// What the cuDNN BatchNorm variants of both ops share (legacy API, as PyTorch eager calls it):
// the handle and the data and parameter descriptors, SPATIAL for the 2d NCHW layout and
// PER_ACTIVATION for the 1d (N, C) one, built in prepare() so that launch() only binds the stream.
#include <cudnn.h>

#include "harness/library_check.hpp"
#include "harness/variant.hpp"
#include "kernels/batchnorm/shape.hpp"

// The BatchNorm entry points are deprecated in cuDNN 9 (the graph API replaces them) but are
// still what PyTorch eager calls; keep them, and silence the warning in the two variant files.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace nb::bn {

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

}  // namespace nb::bn
