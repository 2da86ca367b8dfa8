// cuDNN softmax baseline: cudnnSoftmaxForward, CUDNN_SOFTMAX_ACCURATE (subtracts the max),
// CUDNN_SOFTMAX_MODE_INSTANCE over an (M, N, 1, 1) NCHW descriptor: one softmax per row.
#include <cudnn.h>

#include <limits>
#include <memory>

#include "harness/library_check.hpp"
#include "kernels/softmax/spec.hpp"

namespace nb::softmax {
namespace {

// The device storage of x and y: fp32, bf16 or fp16 (cuDNN computes in float for all three).
cudnnDataType_t data_type(DType dtype) {
  switch (storage_type(dtype)) {
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::f16: return CUDNN_DATA_HALF;
    default: return CUDNN_DATA_FLOAT;
  }
}

class SoftmaxCudnn final : public Variant {
 public:
  ~SoftmaxCudnn() override {
    if (desc_) cudnnDestroyTensorDescriptor(desc_);
    if (handle_) cudnnDestroy(handle_);
  }
  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }
  std::string idea() const override {
    return "cudnnSoftmaxForward, ACCURATE, MODE_INSTANCE on an (M,N,1,1) descriptor of the storage type";
  }
  Support supports(const Problem& p) const override {
    const Shape s = shape_of(p);
    if (s.elements() > std::numeric_limits<int>::max())
      return Support::no("cuDNN legacy tensor descriptors hold int dims and fewer than 2^31 elements");
    return Support::yes();
  }
  void prepare(const Problem& p) override {
    const Shape s = shape_of(p);
    if (!handle_) NB_CUDNN_CHECK(cudnnCreate(&handle_));
    if (!desc_) NB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc_));
    NB_CUDNN_SUPPORTED(
        cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NCHW, data_type(p.dtype), int(s.m), int(s.n), 1, 1));
  }
  void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) override {
    if (!handle_) throw Unsupported("cuDNN softmax was not prepared");
    const float one = 1.0f, zero = 0.0f;  // float scaling for float, half and bfloat16 data alike
    NB_CUDNN_CHECK(cudnnSetStream(handle_, stream));
    const cudnnStatus_t status =
        cudnnSoftmaxForward(handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, desc_,
                            t.ptr<const void>(kX), &zero, desc_, t.ptr<void>(kY));
    // A cuDNN build without a bf16 or fp16 softmax refuses it: the case is skipped, not failed.
    if (is_narrow(p.dtype) && (status == CUDNN_STATUS_NOT_SUPPORTED || status == CUDNN_STATUS_BAD_PARAM))
      NB_CUDNN_SUPPORTED(status);
    NB_CUDNN_CHECK(status);
  }

 private:
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t desc_ = nullptr;
};

}  // namespace

std::unique_ptr<Variant> make_cudnn_variant() { return std::make_unique<SoftmaxCudnn>(); }

}  // namespace nb::softmax
