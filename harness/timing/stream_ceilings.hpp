#pragma once
// Access-pattern ceilings: the bandwidth a simple, well-written streaming kernel reaches when it
// only reads, only writes, or reads two streams and writes one, so a kernel can be judged against
// the ceiling of its own access pattern (the copy ceiling is in bandwidth_ceiling.hpp).
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>


namespace nb {

struct PatternCeiling {
  std::string pattern;      // "copy", "read", "write", "read2_write1"
  std::string traffic;      // what one element costs, e.g. "2 reads + 1 write"
  double gbps = 0;          // bytes_moved / median time
  double cv = 0;            // of the sample times
  std::size_t bytes_moved = 0;  // per sample, reads + writes
  int samples = 0;
};

// Times the read, write and read2_write1 kernels over `bytes` of device memory (read2_write1
// splits it into three equal streams), each after a warm-up, `samples` times with events on `stream`.
// Results in that order.
std::vector<PatternCeiling> measure_stream_ceilings(cudaStream_t stream, std::size_t bytes = std::size_t(1) << 30,
                                                    int samples = 30);

}  // namespace nb
