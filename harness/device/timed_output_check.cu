// The timed-output check's kernels: grid-stride loops that classify each output element
// (output_agreement.hpp) or fold it into a digest, reduce per warp, and add into one state per
// output with atomics; the first failing sample is an atomicMin.
#include "harness/device/timed_output_check.hpp"

#include <climits>
#include <cmath>
#include <sstream>

#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/device/grid_stride.cuh"
#include "harness/device/output_agreement.hpp"

namespace nb {
namespace {

struct Digest {
  double projection[2];  // sums of +-y with signs drawn from the index
  double magnitude;      // sum of |y|
  double squares;        // sum of y^2: a projection of a wrong output moves by about its norm
  unsigned long long nonfinite, disturbed;
};

struct OutputState {
  unsigned long long disturbed, differing;
  int first_sample;  // INT_MAX when none
  double sum_squares;  // of the snapshot's finite values, and how many: the floor's scale
  unsigned long long finite;
  Digest reference, sample;
};

__device__ bool lane_zero() { return (threadIdx.x & 31) == 0; }

// One grid-stride pass over an output.
int blocks(const TimedOutput& o) { return grid_stride_blocks(o.elements); }

__device__ double projection_sign(std::int64_t i, int which) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(which + 1);
  x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
  return (x >> 40) & 1 ? 1.0 : -1.0;
}

__global__ void init_kernel(OutputState* s, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    s[i] = OutputState{};
    s[i].first_sample = INT_MAX;
  }
}

__global__ void scale_kernel(const void* snap, std::int64_t n, DType t, OutputState* s) {
  double squares = 0;
  unsigned long long finite = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const double v = stored::load(snap, i, t);
    if (portable::is_finite(v)) squares += v * v, ++finite;
  }
  squares = warp_sum(squares);
  finite = warp_sum(finite);
  if (lane_zero()) atomicAdd(&s->sum_squares, squares), atomicAdd(&s->finite, finite);
}

__global__ void compare_kernel(const void* out, const void* snap, std::int64_t n, DType t, double relative, int sample,
                               OutputState* s) {
  const double floor = s->finite ? relative * sqrt(s->sum_squares / double(s->finite)) : 0.0;
  unsigned long long disturbed = 0, differing = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const ElementAgreement a = element_agreement(out, snap, i, t, relative, floor);
    disturbed += a == ElementAgreement::disturbed;
    differing += a == ElementAgreement::differs;
  }
  disturbed = warp_sum(disturbed);
  differing = warp_sum(differing);
  if (!lane_zero() || (disturbed == 0 && differing == 0)) return;
  if (disturbed) atomicAdd(&s->disturbed, disturbed);
  if (differing) atomicAdd(&s->differing, differing);
  atomicMin(&s->first_sample, sample);
}

__global__ void digest_kernel(const void* out, std::int64_t n, DType t, Digest* d) {
  double p0 = 0, p1 = 0, magnitude = 0, squares = 0;
  unsigned long long nonfinite = 0, disturbed = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    if (stored::is_poison(out, i, t)) {
      ++disturbed;
      continue;
    }
    const double v = stored::load(out, i, t);
    if (!portable::is_finite(v)) {
      ++nonfinite;
      continue;
    }
    p0 += projection_sign(i, 0) * v;
    p1 += projection_sign(i, 1) * v;
    magnitude += portable::abs(v);
    squares += v * v;
  }
  p0 = warp_sum(p0), p1 = warp_sum(p1), magnitude = warp_sum(magnitude), squares = warp_sum(squares);
  nonfinite = warp_sum(nonfinite), disturbed = warp_sum(disturbed);
  if (!lane_zero()) return;
  atomicAdd(&d->projection[0], p0);
  atomicAdd(&d->projection[1], p1);
  atomicAdd(&d->magnitude, magnitude);
  atomicAdd(&d->squares, squares);
  atomicAdd(&d->nonfinite, nonfinite);
  atomicAdd(&d->disturbed, disturbed);
}

// One thread: the sample's digest against the reference digest. Rounding moves a projection by a
// random walk far below the bound times the norm; a wrong output (even one with the right values
// in the wrong places) by about its norm.
__global__ void digest_verdict_kernel(OutputState* s, double relative, int sample) {
  const Digest& r = s->reference;
  const Digest& d = s->sample;
  const double norm_bound = relative * sqrt(r.squares), sum_bound = relative * r.magnitude;
  const bool differs = d.nonfinite != r.nonfinite || portable::abs(d.projection[0] - r.projection[0]) > norm_bound ||
                       portable::abs(d.projection[1] - r.projection[1]) > norm_bound ||
                       portable::abs(d.magnitude - r.magnitude) > sum_bound;
  if (d.disturbed) s->disturbed += d.disturbed;
  else if (differs) s->differing += 1;
  if ((d.disturbed || differs) && sample < s->first_sample) s->first_sample = sample;
}

}  // namespace

std::size_t snapshot_bytes(const std::vector<TimedOutput>& outputs) {
  std::size_t bytes = 0;
  for (const auto& o : outputs) bytes += static_cast<std::size_t>(o.elements) * dtype_size(o.storage);
  return bytes;
}

bool TimedOutputReport::clean() const {
  for (const auto& o : outputs)
    if (o.disturbed || o.differing) return false;
  return true;
}

std::string TimedOutputReport::describe() const {
  std::ostringstream text;
  for (const auto& o : outputs) {
    if (!o.disturbed && !o.differing) continue;
    if (text.tellp() > 0) text << "; ";
    text << o.name << ": " << o.disturbed << " elements still held the disturbance after a timed launch and "
         << o.differing << (snapshot ? " elements" : " sample digests") << " differed from the output after warm-up"
         << " (first in sample " << o.first_sample << (snapshot ? ")" : "; compared by digest)");
  }
  return text.str();
}

TimedOutputCheck::TimedOutputCheck(std::vector<TimedOutput> outputs, bool snapshot, cudaStream_t stream)
    : outputs_(std::move(outputs)), snapshot_(snapshot), stream_(stream),
      state_(sizeof(OutputState) * (outputs_.empty() ? 1 : outputs_.size())) {
  const int count = static_cast<int>(outputs_.size());
  init_kernel<<<(count + 63) / 64 + 1, 64, 0, stream_>>>(state_.as<OutputState>(), count);
  NB_CHECK_LAUNCH();
  if (snapshot_)
    for (const auto& o : outputs_) copies_.emplace_back(static_cast<std::size_t>(o.elements) * dtype_size(o.storage));
}

void TimedOutputCheck::take_snapshot() {
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    const TimedOutput& o = outputs_[k];
    OutputState* s = state_.as<OutputState>() + k;
    if (snapshot_) {
      NB_CUDA_CHECK(cudaMemcpyAsync(copies_[k].get(), o.data, copies_[k].bytes(), cudaMemcpyDeviceToDevice, stream_));
      scale_kernel<<<blocks(o), kGridStrideThreads, 0, stream_>>>(copies_[k].get(), o.elements, o.storage, s);
    } else {
      digest_kernel<<<blocks(o), kGridStrideThreads, 0, stream_>>>(o.data, o.elements, o.storage, &s->reference);
    }
    NB_CHECK_LAUNCH();
  }
}

void TimedOutputCheck::disturb(int sample) {
  for (const auto& o : outputs_)
    poison_async(o.data, o.poison_bytes, stream_, is_narrow(o.storage), stored::poison_payload(sample));
}

void TimedOutputCheck::check(int sample) {
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    const TimedOutput& o = outputs_[k];
    OutputState* s = state_.as<OutputState>() + k;
    const double relative = timed_output_relative_bound(o.storage);
    if (snapshot_) {
      compare_kernel<<<blocks(o), kGridStrideThreads, 0, stream_>>>(o.data, copies_[k].get(), o.elements, o.storage,
                                                                    relative, sample, s);
      NB_CHECK_LAUNCH();
      continue;
    }
    NB_CUDA_CHECK(cudaMemsetAsync(&s->sample, 0, sizeof(Digest), stream_));
    digest_kernel<<<blocks(o), kGridStrideThreads, 0, stream_>>>(o.data, o.elements, o.storage, &s->sample);
    NB_CHECK_LAUNCH();
    digest_verdict_kernel<<<1, 1, 0, stream_>>>(s, relative, sample);
    NB_CHECK_LAUNCH();
  }
}

TimedOutputReport TimedOutputCheck::finish() {
  std::vector<OutputState> host(outputs_.size());
  if (!host.empty())
    NB_CUDA_CHECK(cudaMemcpyAsync(host.data(), state_.get(), host.size() * sizeof(OutputState), cudaMemcpyDeviceToHost,
                                  stream_));
  NB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  TimedOutputReport report;
  report.snapshot = snapshot_;
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    const OutputState& s = host[k];
    report.outputs.push_back({outputs_[k].name, s.disturbed, s.differing, s.first_sample == INT_MAX ? -1 : s.first_sample});
  }
  return report;
}

}  // namespace nb
