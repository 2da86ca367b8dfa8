// cuDNN backend graphs and their operations (graph_plan.hpp).
#include "baselines/cudnn/graph_plan.hpp"

#include "harness/library_check.hpp"

namespace nb::cudnn_backend {

DescPtr tensor(const TensorSpec& spec) {
  auto t = std::make_unique<Descriptor>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t alignment = 16;
  const auto rank = int64_t(spec.dims.size());
  if (spec.strides.size() != spec.dims.size())
    throw UsageError("cuDNN tensor " + std::to_string(spec.uid) + ": " + std::to_string(spec.dims.size()) +
                     " dims but " + std::to_string(spec.strides.size()) + " strides");
  t->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &spec.dtype)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, spec.dims.data(), rank)
      .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, spec.strides.data(), rank)
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &spec.uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
  const bool yes = true;
  if (spec.passing == TensorPassing::virtual_) t->set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &yes);
  if (spec.passing == TensorPassing::by_value) t->set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &yes);
  t->finalize();
  return t;
}

DescPtr tensor(int64_t uid, std::array<int64_t, 3> dims, std::array<int64_t, 3> strides, bool is_virtual,
               cudnnDataType_t dtype) {
  return tensor(TensorSpec{uid, {dims.begin(), dims.end()}, {strides.begin(), strides.end()}, dtype,
                           is_virtual ? TensorPassing::virtual_ : TensorPassing::device});
}

DescPtr matmul_op(const Descriptor& a, const Descriptor& b, const Descriptor& c) {
  Descriptor desc(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  // FLOAT is the only fp32 compute type the matmul descriptor has; whether an engine runs it
  // as TF32 is in the engine's numerical notes (see uses_tf32 below).
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute);
  desc.finalize();
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  op->set_desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
      .set_desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
      .set_desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c)
      .set_desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc);
  op->finalize();
  return op;
}

DescPtr pointwise_op(cudnnPointwiseMode_t mode, const Descriptor& x, const Descriptor& b, const Descriptor& y) {
  Descriptor desc(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  const cudnnDataType_t prec = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode)
      .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &prec);
  desc.finalize();
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  op->set_desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc)
      .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x)
      .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b)
      .set_desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
  op->finalize();
  return op;
}

DescPtr column_sum_op(const Descriptor& x, const Descriptor& y) {
  Descriptor desc(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  const cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &mode)
      .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute);
  desc.finalize();
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  op->set_desc(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x)
      .set_desc(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y)
      .set_desc(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc);
  op->finalize();
  return op;
}

namespace {

// Sets `name` to `d` where the operation has that tensor.
void set_optional(Descriptor& op, cudnnBackendAttributeName_t name, const Descriptor* d) {
  if (d) op.set_desc(name, *d);
}

}  // namespace

DescPtr norm_forward_op(cudnnBackendNormMode_t mode, cudnnBackendNormFwdPhase_t phase, const NormForwardTensors& t) {
  if (!t.x || !t.scale || !t.epsilon || !t.y)
    throw UsageError("norm_forward_op: x, scale, epsilon and y are required");
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  op->set(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, &mode)
      .set(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, &phase)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, *t.x)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, *t.scale)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, *t.epsilon)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, *t.y);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, t.bias);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, t.mean);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, t.inv_variance);
  op->finalize();
  return op;
}

DescPtr norm_backward_op(cudnnBackendNormMode_t mode, const NormBackwardTensors& t) {
  if (!t.x || !t.dy || !t.scale || !t.inv_variance || !t.dx || !t.dscale)
    throw UsageError("norm_backward_op: x, dy, scale, inv_variance, dx and dscale are required");
  auto op = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR);
  op->set(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, &mode)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, *t.x)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, *t.dy)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, *t.scale)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, *t.inv_variance)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, *t.dx)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, *t.dscale);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, t.mean);
  set_optional(*op, CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, t.dbias);
  op->finalize();
  return op;
}

void Graph::finalize(cudnnHandle_t handle) {
  graph = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle).set_descs(CUDNN_ATTR_OPERATIONGRAPH_OPS, ops);
  graph->finalize();
}

// The message without " from <call> (<file>:<line>)": the status and cuDNN's own detail.
std::string brief(const std::string& what) {
  const auto from = what.find(" from ");
  const auto src = what.find("pp:", from == std::string::npos ? 0 : from);  // .cpp: or .hpp:
  const auto close = src == std::string::npos ? std::string::npos : what.find(')', src);
  if (from == std::string::npos || close == std::string::npos) return what;
  return what.substr(0, from) + what.substr(close + 1);
}

void execute_plan(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, std::vector<int64_t> uids,
                  std::vector<void*> pointers, void* workspace) {
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), int64_t(uids.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(), int64_t(pointers.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace);
  pack.finalize();
  NB_CUDNN_CHECK(cudnnBackendExecute(handle, plan, pack.get()));
}

}  // namespace nb::cudnn_backend
