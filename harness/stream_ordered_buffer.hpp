#pragma once
// Device memory from the device's stream-ordered pool, for the harness's short-lived scratch: a
// comparison's partial tallies, an input hash, a reference program's temporaries, allocated and
// freed around every validated launch. cudaFree waits for the whole device; this gives the memory
// back to the pool in the stream's order instead.
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

namespace nb {

// `bytes` of device memory (cudaMallocAsync on `stream`), given back (cudaFreeAsync on the same
// stream) when the last copy of the handle goes. The stream must outlive every copy, and the
// memory is used on that stream only, or after waiting for it. The pool keeps up to 64 MB between
// uses instead of handing it back to the driver at every synchronisation.
std::shared_ptr<void> stream_ordered_buffer(std::size_t bytes, cudaStream_t stream);

}  // namespace nb
