#include "harness/candidate/candidate_variant.hpp"

#include <cstring>

#include "harness/candidate/alloc_watch.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

nb_role role_of(TensorRole r) {
  switch (r) {
    case TensorRole::input: return NB_INPUT;
    case TensorRole::output: return NB_OUTPUT;
    case TensorRole::inout: return NB_INOUT;
  }
  return NB_INPUT;
}

std::string message(const char* text) {
  std::string s(text, strnlen(text, NB_MESSAGE_BYTES));
  return s.empty() ? "no message" : s;
}

}  // namespace

std::vector<nb_tensor> tensor_descriptors(const std::vector<TensorDecl>& decls, const DeviceTensors& t) {
  std::vector<nb_tensor> out(decls.size());
  for (std::size_t i = 0; i < decls.size(); ++i) {
    nb_tensor& d = out[i];
    const std::vector<std::int64_t> dims = dims_of(decls[i]);
    if (dims.size() > NB_MAX_DIMS) throw UsageError(decls[i].name + ": more than NB_MAX_DIMS dimensions");
    d.data = i < t.buffers.size() ? t.buffers[i].get() : nullptr;
    d.dtype = decls[i].dtype == DType::bf16 ? NB_BFLOAT16 : decls[i].dtype == DType::f16 ? NB_FLOAT16 : NB_FLOAT32;
    d.role = role_of(decls[i].role);
    d.ndim = static_cast<std::int32_t>(dims.size());
    std::int64_t stride = 1;
    for (int k = d.ndim - 1; k >= 0; --k) {
      d.shape[k] = dims[static_cast<std::size_t>(k)];
      d.strides[k] = stride;
      stride *= d.shape[k];
    }
    d.elements = decls[i].elements;
    d.name = decls[i].name.c_str();
  }
  return out;
}

CandidateVariant::CandidateVariant(std::string name, CandidateLibrary library, const OpSpec& op, ExternalSource source)
    : name_(std::move(name)), library_(std::move(library)), op_(op), source_(std::move(source)) {}

CandidateVariant::ProblemView CandidateVariant::view_of(const Problem& p) const {
  ProblemView v;
  for (const auto& [name, value] : p.params.values()) v.params.push_back({name.c_str(), value});
  v.id = p.id();
  v.problem.op = p.op.c_str();
  v.problem.precision = p.dtype == DType::tf32 ? NB_PRECISION_TF32 : NB_PRECISION_FP32;
  v.problem.num_params = static_cast<std::int32_t>(v.params.size());
  return v;
}

Support CandidateVariant::supports(const Problem& p) const {
  if (!library_.functions().supports) {
    // Written before bf16/fp16 problems existed, it would read 2-byte tensors as floats and write
    // past the end of its outputs.
    if (is_narrow(p.dtype))
      return Support::no("a " + dtype_name(p.dtype) + " problem: the candidate exports no nb_candidate_supports, so it "
                         "is taken to handle float32 tensors only (export it to run bf16/fp16 problems)");
    return Support::yes();
  }
  ProblemView v = view_of(p);
  v.problem.id = v.id.c_str();
  v.problem.params = v.params.data();
  char reason[NB_MESSAGE_BYTES] = {};
  return library_.functions().supports(&v.problem, reason) ? Support::yes() : Support::no(message(reason));
}

std::size_t CandidateVariant::workspace_bytes(const Problem& p) const {
  if (!library_.functions().workspace_bytes) return 0;
  ProblemView v = view_of(p);
  v.problem.id = v.id.c_str();
  v.problem.params = v.params.data();
  return library_.functions().workspace_bytes(&v.problem);
}

void CandidateVariant::prepare(const Problem& p) {
  if (!library_.functions().prepare) return;
  ProblemView v = view_of(p);
  v.problem.id = v.id.c_str();
  v.problem.params = v.params.data();
  char error[NB_MESSAGE_BYTES] = {};
  if (library_.functions().prepare(&v.problem, error) != 0)
    throw DeviceError("candidate prepare failed: " + message(error));
}

void CandidateVariant::launch(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) {
  ProblemView v = view_of(p);
  v.problem.id = v.id.c_str();
  v.problem.params = v.params.data();
  const std::vector<nb_tensor> tensors = tensor_descriptors(op_.tensors(p), t);
  char error[NB_MESSAGE_BYTES] = {};
  const long before = AllocWatch::calls();
  AllocWatch::arm();
  const int status = library_.functions().launch(&v.problem, tensors.data(), static_cast<std::int32_t>(tensors.size()),
                                                 workspace, workspace_bytes(p), stream, error);
  AllocWatch::disarm();
  const long made = AllocWatch::calls() - before;
  if (made > 0 && allocations_ == 0) first_allocation_ = AllocWatch::first_call();
  allocations_ += made;
  if (status != 0) throw DeviceError("candidate launch returned " + std::to_string(status) + ": " + message(error));
  const cudaError_t launch_error = cudaGetLastError();
  if (launch_error != cudaSuccess)
    throw DeviceError(std::string("candidate launch: ") + cudaGetErrorString(launch_error));
}

}  // namespace nb
