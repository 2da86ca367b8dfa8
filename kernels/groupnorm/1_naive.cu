// Naive: one thread per (n, group) sums x and x^2 serially in double, then one thread per element
// normalizes, finding its channel with 64-bit division. x is read twice; the first read is serial.
#include "harness/cuda_check.hpp"
#include "kernels/groupnorm/common.cuh"
#include "harness/variant.hpp"

namespace nb::groupnorm {
namespace {

__global__ void naive_stats(Args a, float2* stats) {
  const long long grp = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (grp >= a.groups) return;
  const float* x = a.x + grp * a.group_elems;
  double sum = 0, sq = 0;
  for (long long i = 0; i < a.group_elems; ++i) sum += x[i], sq += double(x[i]) * x[i];
  const double mean = sum / double(a.group_elems);
  double var = sq / double(a.group_elems) - mean * mean;
  var = var < 0 ? 0 : var;
  stats[grp] = make_float2(float(mean), float(1.0 / sqrt(var + a.eps)));
}

__global__ void naive_apply(Args a, const float2* stats) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= a.groups * a.group_elems) return;
  const long long grp = i / a.group_elems;
  const long long c = (grp % a.g) * a.cpg + (i % a.group_elems) / a.hw;
  const float2 s = stats[grp];
  a.y[i] = (a.x[i] - s.x) * s.y * a.gamma[c] + a.beta[c];
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const Args a = make_args(p, t);
  float2* stats = static_cast<float2*>(ws);
  naive_stats<<<unsigned(dev::ceil_div(a.groups, 128)), 128, 0, stream>>>(a, stats);
  NB_CHECK_LAUNCH();
  naive_apply<<<unsigned(dev::ceil_div(a.groups * a.group_elems, 256)), 256, 0, stream>>>(a, stats);
  NB_CHECK_LAUNCH();
}

std::size_t workspace(const Problem& p) { return sizeof(float2) * std::size_t(shape_of(p).groups()); }

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({
      "naive", "naive",
      "thread per (n,group) sums x, x^2 serially in double; thread per element normalizes",
      launch, nullptr, workspace, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::groupnorm
