# normbench_detect_cuda_arch(<out>): the compute capability of the first visible GPU
# as CMake spells it ("90"), or 90 when no GPU answers (CI, build hosts).
function(normbench_detect_cuda_arch out)
  set(arch 90)
  find_program(NVIDIA_SMI nvidia-smi)
  if(NVIDIA_SMI)
    execute_process(COMMAND ${NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND caps MATCHES "^([0-9]+)\\.([0-9]+)")
      set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  message(STATUS "normbench: CUDA architecture ${arch} (override with -DCMAKE_CUDA_ARCHITECTURES)")
  set(${out} ${arch} PARENT_SCOPE)
endfunction()
