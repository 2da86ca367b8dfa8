// A normbench whose C++ was built for AVX2 + FMA (cmake/HostSimd.cmake) refuses, before anything
// else of it runs, a CPU that lacks them, instead of dying of an illegal instruction mid-run.
// This file itself is built for the x86-64 baseline.
#include <cstdio>
#include <cstdlib>

#include "harness/errors.hpp"

#if defined(NB_HOST_SIMD_AVX2)
namespace {

// Priority 101: before the constructors of every other file (priorities below 101 are the
// implementation's).
__attribute__((constructor(101))) void refuse_a_cpu_without_avx2_fma() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return;
  std::fputs(
      "normbench: this build's host code uses AVX2 and FMA (the CPU that built it had them), and this CPU lacks "
      "them: build normbench on this machine, or configure with -DNB_HOST_SIMD=generic\n",
      stderr);
  std::_Exit(nb::kExitUsage);
}

}  // namespace
#endif
