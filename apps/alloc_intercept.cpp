// Preloaded into a candidate's worker process (LD_PRELOAD): the CUDA allocation entry points a
// candidate library resolves are these wrappers, which count the calls made while the harness
// has armed them (around each candidate launch) and forward every call to the real function.
// What it does not see: a candidate with its own statically linked CUDA runtime, driver entry
// points fetched through cuGetProcAddress, and allocations made inside other libraries.
#include <dlfcn.h>

#include <atomic>
#include <cstddef>

namespace {

std::atomic<int> armed{0};
std::atomic<long> calls{0};
std::atomic<const char*> first_call{nullptr};

void note(const char* name) {
  if (!armed.load(std::memory_order_relaxed)) return;
  if (calls.fetch_add(1) == 0) first_call.store(name);
}

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

// cudaError_t and CUresult are enums: int-sized return values.
#define NB_FORWARD(ret, name, params, args)                               \
  extern "C" __attribute__((visibility("default"))) ret name params {     \
    note(#name);                                                          \
    using Fn = ret(*) params;                                             \
    static Fn fn = real<Fn>(#name);                                       \
    return fn ? fn args : static_cast<ret>(999);                          \
  }

NB_FORWARD(int, cudaMalloc, (void** p, std::size_t n), (p, n))
NB_FORWARD(int, cudaMallocManaged, (void** p, std::size_t n, unsigned flags), (p, n, flags))
NB_FORWARD(int, cudaMallocAsync, (void** p, std::size_t n, void* stream), (p, n, stream))
NB_FORWARD(int, cudaMallocFromPoolAsync, (void** p, std::size_t n, void* pool, void* stream), (p, n, pool, stream))
NB_FORWARD(int, cudaMallocPitch, (void** p, std::size_t* pitch, std::size_t w, std::size_t h), (p, pitch, w, h))
NB_FORWARD(int, cudaMallocHost, (void** p, std::size_t n), (p, n))
NB_FORWARD(int, cudaHostAlloc, (void** p, std::size_t n, unsigned flags), (p, n, flags))
NB_FORWARD(int, cuMemAlloc_v2, (unsigned long long* p, std::size_t n), (p, n))
NB_FORWARD(int, cuMemAllocManaged, (unsigned long long* p, std::size_t n, unsigned flags), (p, n, flags))
NB_FORWARD(int, cuMemAllocAsync, (unsigned long long* p, std::size_t n, void* stream), (p, n, stream))

// The harness's side (harness/candidate/alloc_watch.cpp finds these with dlsym).
extern "C" __attribute__((visibility("default"))) void nb_alloc_watch_arm(int on) { armed.store(on); }
extern "C" __attribute__((visibility("default"))) long nb_alloc_watch_calls(const char** first) {
  if (first) *first = first_call.load();
  return calls.load();
}
