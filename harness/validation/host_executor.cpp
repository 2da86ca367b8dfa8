#include "harness/validation/host_executor.hpp"

namespace nb {

void HostExecutor::gemm(const GemmShape& s, const double* a, const double* b, double* c) {
  parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (std::int64_t p = 0; p < s.k; ++p)
          sum += (s.transpose_a ? a[p * s.m + i] : a[i * s.k + p]) * (s.transpose_b ? b[j * s.k + p] : b[p * s.n + j]);
        c[i * s.n + j] = sum;
      }
  }, 1);
}

}  // namespace nb
