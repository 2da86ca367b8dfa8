// Planted: correct, but before its first launch it overwrites the driver's cuEventElapsedTime
// (every version the runtime may ask for) with a function that reports 1 us: in its worker, every
// event-timed launch looks a thousand times faster. The GPU's own clock, stamped by the harness
// around each sample, still shows the time (event_timer_mismatch). x86-64 only.
#include <cuda.h>
#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "planted_rmsnorm.cuh"

static CUresult report_one_microsecond(float* ms, CUevent, CUevent) {
  *ms = 0.001f;
  return CUDA_SUCCESS;
}

// Writes "movabs rax, replacement; jmp rax" over the first 12 bytes of `target`.
static bool redirect(void* target, void* replacement) {
#if defined(__x86_64__)
  unsigned char jump[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};
  memcpy(jump + 2, &replacement, sizeof replacement);
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t first = uintptr_t(target) & ~(page - 1), last = (uintptr_t(target) + sizeof jump - 1) & ~(page - 1);
  const size_t bytes = last - first + page;
  if (mprotect(reinterpret_cast<void*>(first), bytes, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  memcpy(target, jump, sizeof jump);
  __builtin___clear_cache(static_cast<char*>(target), static_cast<char*>(target) + sizeof jump);
  return mprotect(reinterpret_cast<void*>(first), bytes, PROT_READ | PROT_EXEC) == 0;
#else
  (void)target, (void)replacement;
  return false;
#endif
}

// The driver's entry points as the runtime finds them, and as the library exports them.
static int patch_event_timer() {
  int patched = 0;
  void* seen[8] = {};
  auto patch_once = [&](void* fn) {
    if (!fn) return;
    for (int i = 0; i < patched; ++i)
      if (seen[i] == fn) return;
    if (patched < 8 && redirect(fn, reinterpret_cast<void*>(&report_one_microsecond))) seen[patched++] = fn;
  };
  for (int version : {12000, 12080, CUDART_VERSION}) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuEventElapsedTime", &fn, version, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      patch_once(fn);
  }
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    patch_once(dlsym(driver, "cuEventElapsedTime"));
    patch_once(dlsym(driver, "cuEventElapsedTime_v2"));
  }
  cudaGetLastError();
  return patched;
}

// Whether this process's event timer now reports exactly 1 us, whatever the events enclose.
static bool timer_is_patched(cudaStream_t stream) {
  cudaEvent_t start, stop;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) return false;
  cudaEventRecord(start, stream);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = -1;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms == 0.001f;
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  static bool patched = false;
  if (!patched) {
    const int sites = patch_event_timer();
    if (sites == 0 || !timer_is_patched(cudaStream_t(s))) {
      snprintf(error, NB_MESSAGE_BYTES, "the planted patch of the event timer did not take (%d sites patched)", sites);
      return 1;
    }
    patched = true;
  }
  return planted::launch_correct(p, t, cudaStream_t(s), error);
}
