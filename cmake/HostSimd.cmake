# The host code's instruction set. The float64 references and Eigen's audit of the device's are
# the host's work in a run (docs/validation.md), and Eigen picks its vectors when it is compiled:
# built for the x86-64 baseline (SSE2, no FMA) its double GEMM ran 14 GFLOP/s on an AMD EPYC
# core, built for AVX2 + FMA 34 (64x4096 times 4096x4096). So C++ is built for AVX2 + FMA where
# the building CPU has them (NB_HOST_SIMD=auto), and normbench refuses to start on a CPU without
# them (apps/host_cpu_check.cpp) rather than die of an illegal instruction.
# Everywhere, -ffp-contract=off: no a*b + c of the source becomes an FMA behind its back, so the
# host's draws stay the device's bits and its sums the same with either instruction set.
# The CUDA files' host code stays at the baseline: it holds no Eigen.
set(NB_HOST_SIMD "auto" CACHE STRING "C++ host code: auto (avx2 where this CPU has AVX2 and FMA), avx2, generic")
set_property(CACHE NB_HOST_SIMD PROPERTY STRINGS auto avx2 generic)

function(normbench_host_simd out)
  if(NOT NB_HOST_SIMD STREQUAL "auto")
    set(${out} ${NB_HOST_SIMD} PARENT_SCOPE)
    return()
  endif()
  set(${out} generic PARENT_SCOPE)
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" OR CMAKE_CROSSCOMPILING)
    return()
  endif()
  include(CheckCXXSourceRuns)
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_runs([[
    int main() {
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 0 : 1;
    }]] NB_HOST_CPU_HAS_AVX2_FMA)
  if(NB_HOST_CPU_HAS_AVX2_FMA)
    set(${out} avx2 PARENT_SCOPE)
  endif()
endfunction()

normbench_host_simd(NORMBENCH_HOST_SIMD)
if(NOT NORMBENCH_HOST_SIMD MATCHES "^(avx2|generic)$")
  message(FATAL_ERROR "NB_HOST_SIMD must be auto, avx2 or generic, not '${NB_HOST_SIMD}'")
endif()
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
if(NORMBENCH_HOST_SIMD STREQUAL "avx2")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-mavx2> $<$<COMPILE_LANGUAGE:CXX>:-mfma>)
endif()
message(STATUS "normbench: host C++ for ${NORMBENCH_HOST_SIMD} (NB_HOST_SIMD=${NB_HOST_SIMD})")
