#pragma once
// Persisting L2 lines survive the harness's L2 flush: a variant that raises the device's
// persisting L2 limit (cudaLimitPersistingL2CacheSize) or sets an access-policy window with
// persisting hits on the harness's stream keeps its inputs in L2 between samples, and its
// bandwidth beats DRAM's (llm.c once reported 3530 GB/s on an 864 GB/s GPU that way). The harness
// looks after every validated launch, after the warm-up and after the timed loop, and resets both,
// and the lines already persisting, before anything more is timed.
#include <cuda_runtime.h>

#include <string>

namespace nb {

// What a variant left set: "" when nothing, else e.g. "persisting L2 limit 31457280 bytes;
// access-policy window of 16777216 bytes with persisting hits on the stream". When something was
// set, both are reset and the persisting lines evicted (cudaCtxResetPersistingL2Cache).
std::string find_and_reset_persisting_l2(cudaStream_t stream);

// Sets the limit to 0 and clears the window: the state every variant starts from (a run's start).
void reset_persisting_l2(cudaStream_t stream);

}  // namespace nb
