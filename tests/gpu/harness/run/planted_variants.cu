// Planted faults: each variant runs the correct kernel (or nothing) and then breaks one rule
// with a copy or a tiny kernel on the same stream, so that only the planted fault differs.
#include "planted_variants.hpp"

#include <cstdint>

#include "harness/cuda_check.hpp"
#include "harness/validation/compare.hpp"

namespace nb::test {
namespace {

__global__ void transpose_kernel(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i < rows * cols) out[(i % cols) * rows + i / cols] = in[i];
}

__global__ void wild_write_kernel(float* wild) { wild[threadIdx.x * 1024] = 1.0f; }

int index_of(const std::vector<TensorDecl>& decls, TensorRole role) {
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (decls[i].role == role) return static_cast<int>(i);
  return -1;
}

class PlantedVariant final : public Variant {
 public:
  PlantedVariant(Fault f, const OpSpec& op, Variant& correct, std::int64_t rows, std::int64_t cols)
      : fault_(f), op_(op), correct_(correct), rows_(rows), cols_(cols) {}
  ~PlantedVariant() override {
    if (side_) cudaStreamDestroy(side_);
  }

  std::string name() const override { return "planted_" + fault_name(fault_); }
  std::string kind() const override { return "planted"; }
  std::string idea() const override { return "a correct variant with one planted fault"; }
  std::size_t workspace_bytes(const Problem& p) const override {
    return correct_.workspace_bytes(p) + output_bytes(p);
  }
  void prepare(const Problem& p) override {
    correct_.prepare(p);
    if (fault_ == Fault::other_stream && !side_) NB_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    if (fault_ == Fault::oom_in_prepare) {
      void* petabyte = nullptr;
      NB_CUDA_CHECK(cudaMalloc(&petabyte, std::size_t(1) << 50));
      cudaFree(petabyte);
    }
  }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override;

 private:
  std::size_t output_bytes(const Problem& p) const {
    const auto decls = op_.tensors(p);
    return static_cast<std::size_t>(decls[index_of(decls, TensorRole::output)].elements) * sizeof(float);
  }

  Fault fault_;
  const OpSpec& op_;
  Variant& correct_;
  std::int64_t rows_, cols_;
  cudaStream_t side_ = nullptr;
};

void PlantedVariant::launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const auto decls = op_.tensors(p);
  float* y = t.out(index_of(decls, TensorRole::output));
  float* x = t.ptr<float>(index_of(decls, TensorRole::input));
  const std::size_t bytes = output_bytes(p), n = bytes / sizeof(float);
  char* scratch = static_cast<char*>(ws) + correct_.workspace_bytes(p);
  switch (fault_) {
    case Fault::skips_work: return;
    case Fault::zero_output: NB_CUDA_CHECK(cudaMemsetAsync(y, 0, bytes, s)); return;
    case Fault::other_stream: correct_.launch(p, t, ws, side_); return;
    case Fault::illegal_address:
      wild_write_kernel<<<1, 32, 0, s>>>(reinterpret_cast<float*>(std::uintptr_t(0xdead0000)));
      NB_CHECK_LAUNCH();
      NB_CUDA_CHECK(cudaStreamSynchronize(s));
      return;
    default: correct_.launch(p, t, ws, s);
  }
  if (fault_ == Fault::one_unwritten) {
    const float poison = poison_value();
    NB_CUDA_CHECK(cudaMemcpyAsync(y + n - 1, &poison, sizeof poison, cudaMemcpyHostToDevice, s));
  } else if (fault_ == Fault::one_nan) {
    const float nan = __builtin_nanf("");
    NB_CUDA_CHECK(cudaMemcpyAsync(y + n / 2, &nan, sizeof nan, cudaMemcpyHostToDevice, s));
  } else if (fault_ == Fault::shifted) {
    NB_CUDA_CHECK(cudaMemcpyAsync(scratch, y, bytes, cudaMemcpyDeviceToDevice, s));
    NB_CUDA_CHECK(cudaMemcpyAsync(y, scratch + sizeof(float), bytes - sizeof(float), cudaMemcpyDeviceToDevice, s));
  } else if (fault_ == Fault::transposed) {
    NB_CUDA_CHECK(cudaMemcpyAsync(scratch, y, bytes, cudaMemcpyDeviceToDevice, s));
    transpose_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(reinterpret_cast<float*>(scratch), y,
                                                                            rows_, cols_);
    NB_CHECK_LAUNCH();
  } else if (fault_ == Fault::writes_input) {
    NB_CUDA_CHECK(cudaMemsetAsync(x, 0, sizeof(float), s));
  }
}

}  // namespace

std::string fault_name(Fault f) {
  switch (f) {
    case Fault::zero_output: return "zero_output";
    case Fault::one_unwritten: return "one_unwritten";
    case Fault::one_nan: return "one_nan";
    case Fault::shifted: return "shifted";
    case Fault::transposed: return "transposed";
    case Fault::writes_input: return "writes_input";
    case Fault::other_stream: return "other_stream";
    case Fault::skips_work: return "skips_work";
    case Fault::illegal_address: return "illegal_address";
    case Fault::oom_in_prepare: return "oom_in_prepare";
  }
  return "?";
}

std::unique_ptr<Variant> make_planted_variant(Fault fault, const OpSpec& op, Variant& correct, std::int64_t rows,
                                              std::int64_t cols) {
  return std::make_unique<PlantedVariant>(fault, op, correct, rows, cols);
}

}  // namespace nb::test
