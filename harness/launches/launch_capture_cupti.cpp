// The CUPTI side of launch_capture.hpp: the activity API's buffer callbacks, a session attached
// at the first capture, and the records of one capture turned into KernelLaunch values.
#include "harness/launches/launch_capture.hpp"

#include <cupti.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "harness/cuda_check.hpp"

namespace nb {
namespace {

constexpr CUpti_ActivityKind kKernelKind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;

// The kernel record this CUPTI writes: CUpti_ActivityKernel10 in CUDA 13. CUDA 12 writes version
// 8 or 9 (by minor release); every field read here (up to the cluster dims) sits where version 8
// has it in both, and version 8 is declared by every CUDA 12 header.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel8;
#endif

std::string cupti_error(const char* call, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  std::string why = std::string(call) + ": " + text;
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    why += " (another CUPTI client holds CUPTI: Nsight Compute, Nsight Systems, compute-sanitizer or a debugger)";
  return why;
}

// A kernel record as delivered, with what orders it and tells its stream.
struct RecordedKernel {
  KernelLaunch launch;
  std::uint32_t correlation_id = 0;  // the launch call's: launch order
  std::uint32_t stream_id = 0;
};

// What the buffer callbacks delivered since it was last taken.
struct Delivery {
  std::vector<RecordedKernel> kernels;
  std::uint64_t dropped = 0;  // records CUPTI had no room for
};

// CUPTI may call the buffer callbacks from a thread of its own.
struct Delivered {
  std::mutex mutex;
  Delivery delivery;
};

Delivered& delivered() {
  static Delivered d;
  return d;
}

RecordedKernel recorded_kernel(const KernelRecord& r) {
  RecordedKernel k;
  KernelLaunch& l = k.launch;
  l.mangled_name = r.name ? r.name : "";
  l.grid = {r.gridX, r.gridY, r.gridZ};
  l.block = {r.blockX, r.blockY, r.blockZ};
  // Zero on devices before sm_90, and for a launch without a cluster on some drivers: no cluster.
  l.cluster = {std::max<std::int64_t>(r.clusterX, 1), std::max<std::int64_t>(r.clusterY, 1),
               std::max<std::int64_t>(r.clusterZ, 1)};
  l.registers_per_thread = r.registersPerThread;
  l.static_shared_bytes = r.staticSharedMemory;
  l.dynamic_shared_bytes = r.dynamicSharedMemory;
  l.start_ns = r.start;
  l.end_ns = r.end;
  k.correlation_id = r.correlationId;
  k.stream_id = r.streamId;
  return k;
}

constexpr std::size_t kBufferBytes = std::size_t(1) << 20;  // ~4000 kernel records

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(alignof(std::max_align_t), kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // no buffer: CUPTI drops the records, and counts them
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid_bytes) {
  Delivered& d = delivered();
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS)
      if (record->kind == kKernelKind)
        d.delivery.kernels.push_back(recorded_kernel(*reinterpret_cast<const KernelRecord*>(record)));
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) d.delivery.dropped += dropped;
  }
  std::free(buffer);
}

// What was delivered, emptied.
Delivery taken_delivery() {
  Delivered& d = delivered();
  std::lock_guard<std::mutex> lock(d.mutex);
  Delivery out;
  std::swap(out, d.delivery);
  return out;
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// CUPTI attached to the process with the buffer callbacks registered, or why it could not be.
class CuptiSession {
 public:
  static CuptiSession& instance() {
    static CuptiSession s;
    return s;
  }

  // "" once attached; the reason, for good, when CUPTI could not be.
  const std::string& attach() {
    if (attached_ || !failure_.empty()) return failure_;
    // A subscriber of our own, dropped at once, is how CUPTI says another client already holds it.
    CUpti_SubscriberHandle probe = nullptr;
    if (CUptiResult r = cuptiSubscribe(&probe, &ignore_callback, nullptr); r != CUPTI_SUCCESS)
      return failure_ = cupti_error("cuptiSubscribe", r);
    if (CUptiResult r = cuptiUnsubscribe(probe); r != CUPTI_SUCCESS) return failure_ = cupti_error("cuptiUnsubscribe", r);
    if (CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
      return failure_ = cupti_error("cuptiActivityRegisterCallbacks", r);
    attached_ = true;
    return failure_;
  }

  void detach() {
    if (!attached_) return;
    attached_ = false;
    // cuptiFinalize wants the device idle and the buffers flushed first.
    if (cudaDeviceSynchronize() != cudaSuccess) return;  // a lost context: CUPTI goes with the process
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    taken_delivery();
    if (CUptiResult r = cuptiFinalize(); r != CUPTI_SUCCESS) failure_ = cupti_error("cuptiFinalize", r);
  }

 private:
  bool attached_ = false;
  std::string failure_;
};

// Kernel records enabled for its lifetime. finish() disables them and has their buffers delivered;
// left without it (an exception), the destructor does the same and the records are dropped.
class KernelRecording {
 public:
  KernelRecording() : enabled_(cuptiActivityEnable(kKernelKind)) {}
  ~KernelRecording() {
    if (enabled_ != CUPTI_SUCCESS || finished_) return;
    cuptiActivityDisable(kKernelKind);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    taken_delivery();
  }
  KernelRecording(const KernelRecording&) = delete;
  KernelRecording& operator=(const KernelRecording&) = delete;

  std::string failure() const { return enabled_ == CUPTI_SUCCESS ? "" : cupti_error("cuptiActivityEnable", enabled_); }

  // "" when the records were delivered, else the failing call.
  std::string finish() {
    finished_ = true;
    if (CUptiResult r = cuptiActivityDisable(kKernelKind); r != CUPTI_SUCCESS) return cupti_error("cuptiActivityDisable", r);
    if (CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS)
      return cupti_error("cuptiActivityFlushAll", r);
    return "";
  }

 private:
  CUptiResult enabled_;
  bool finished_ = false;
};

// The delivered kernels in launch order (by the launch call's correlation id; the kernels of one
// call, such as a graph's, by start), marked by whether they ran on the case's stream.
std::vector<KernelLaunch> in_launch_order(std::vector<RecordedKernel> kernels, std::uint32_t case_stream) {
  std::stable_sort(kernels.begin(), kernels.end(), [](const RecordedKernel& a, const RecordedKernel& b) {
    return a.correlation_id != b.correlation_id ? a.correlation_id < b.correlation_id
                                                : a.launch.start_ns < b.launch.start_ns;
  });
  std::vector<KernelLaunch> launches;
  for (RecordedKernel& k : kernels) {
    k.launch.on_case_stream = k.stream_id == case_stream;
    launches.push_back(std::move(k.launch));
  }
  return launches;
}

}  // namespace

CaseLaunches capture_launches(const std::function<void()>& launch, cudaStream_t stream) {
  if (const std::string& why = CuptiSession::instance().attach(); !why.empty()) return CaseLaunches::unavailable(why);
  NB_CUDA_CHECK(cudaDeviceSynchronize());  // the work before it finished: none of its kernels is recorded
  std::uint32_t case_stream = 0;
  if (CUptiResult r = cuptiGetStreamIdEx(nullptr, stream, 0, &case_stream); r != CUPTI_SUCCESS)
    return CaseLaunches::unavailable(cupti_error("cuptiGetStreamIdEx", r));
  taken_delivery();  // nothing left from an earlier capture
  KernelRecording recording;
  if (std::string why = recording.failure(); !why.empty()) return CaseLaunches::unavailable(why);
  launch();
  NB_CUDA_CHECK(cudaDeviceSynchronize());  // every kernel it launched, on any stream, has ended
  if (std::string why = recording.finish(); !why.empty()) return CaseLaunches::unavailable(why);
  Delivery d = taken_delivery();
  CaseLaunches launches = CaseLaunches::of(in_launch_order(std::move(d.kernels), case_stream));
  launches.dropped_records = d.dropped;
  return launches;
}

void end_launch_capture() { CuptiSession::instance().detach(); }

}  // namespace nb
