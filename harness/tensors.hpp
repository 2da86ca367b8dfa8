#pragma once
// The tensors of a problem: what the op spec declares, the host copies the references read,
// and the float64 reference values they produce. Tensors are addressed by their index in the
// op's declaration list (each op names the indices in an enum next to its spec).
#include <cstdint>
#include <string>
#include <vector>

#include "harness/dtype.hpp"

namespace nb {

enum class TensorRole {
  input,   // read only; hashed before and after every validated launch
  output,  // written only; poisoned before every validated launch
  inout,   // read and updated in place (running statistics); reset before every launch
};

// Where each tensor starts. aligned: at the start of its own allocation (256 bytes or more, as
// cudaMalloc gives). misaligned: one element past it (2 bytes for bf16 and fp16, 4 for fp32), the
// least misalignment its elements allow: a kernel's 16-byte vector path must notice and fall back,
// or decline the case with a reason (`normbench run --misaligned`, the misaligned GPU tests).
enum class TensorPlacement { aligned, misaligned };

struct TensorDecl {
  std::string name;
  TensorRole role = TensorRole::input;
  std::int64_t elements = 0;
  // Dimensions, row-major and contiguous (PyTorch's): empty means one dimension of `elements`.
  std::vector<std::int64_t> shape = {};
  // How the device stores it: fp32, or the problem's narrow type (storage_type(problem.dtype)).
  // Statistics such as saved mean and rstd stay fp32 in a bf16 problem, as in PyTorch.
  DType dtype = DType::f32;
};

// Bytes of the device tensor: elements times the storage size.
std::size_t storage_bytes(const TensorDecl& d);

// A tensor's dimensions: its declared shape, or {elements}.
std::vector<std::int64_t> dims_of(const TensorDecl& d);
std::string format_dims(const std::vector<std::int64_t>& dims);  // "(7, 1000)"

const char* role_name(TensorRole r);

// Host copies, one vector per declared tensor (outputs stay empty until downloaded).
struct HostTensors {
  std::vector<std::vector<float>> data;

  std::vector<float>& operator[](int i) { return data.at(static_cast<std::size_t>(i)); }
  const std::vector<float>& operator[](int i) const { return data.at(static_cast<std::size_t>(i)); }
};

// Float64 reference values, one vector per declared output or inout tensor (inputs empty).
struct ReferenceTensors {
  std::vector<std::vector<double>> data;
  std::vector<double> rms;  // optional, per tensor: rms of the finite values (the comparison floor)
  // The instance's condition factor where only the reference's own intermediates show it (the
  // statistics of a GEMM output that no tensor holds); reference() may raise it, the harness
  // resets it to 1 before each call and applies the larger of it and OpSpec::condition.
  double condition = 1.0;
  // How much this instance amplifies a relative rounding of every GEMM product into each tensor's
  // normwise error, where the problem's precision rounds the GEMM's operands (tf32), per declared
  // tensor (empty: 0 for all): set by reference() of the ops that have one (OpSpec::operand_rounding
  // says what it is worth), cleared with `condition` before each call.
  std::vector<double> operand_amplification;

  std::vector<double>& operator[](int i) { return data.at(static_cast<std::size_t>(i)); }
  const std::vector<double>& operator[](int i) const { return data.at(static_cast<std::size_t>(i)); }
};

// Sizes every host vector per the declarations: inputs and inout get their elements, outputs
// are left empty for HostTensors; ReferenceTensors get outputs and inout.
HostTensors allocate_host_inputs(const std::vector<TensorDecl>& decls);
ReferenceTensors allocate_references(const std::vector<TensorDecl>& decls);

// Host room for what a launch produces: every output and inout tensor, sized.
HostTensors allocate_host_results(const std::vector<TensorDecl>& decls);

std::int64_t total_elements(const std::vector<TensorDecl>& decls);

}  // namespace nb
