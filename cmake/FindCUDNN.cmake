# FindCUDNN: cuDNN headers and library, wherever the machine keeps them: under the CUDA
# toolkit (tarball installs) or under the Debian/Ubuntu multiarch folders (packages).
#
# Defines CUDNN_FOUND, CUDNN_VERSION, CUDNN_INCLUDE_DIR, CUDNN_LIBRARY and the imported
# target CUDNN::cudnn. Hints: CUDNN_ROOT (variable or environment).
set(_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _cudnn_include_hints ${CUDAToolkit_INCLUDE_DIRS})
endif()

find_path(CUDNN_INCLUDE_DIR cudnn_version.h
  HINTS ${_cudnn_include_hints} ${_cudnn_hints}
  PATH_SUFFIXES include targets/x86_64-linux/include
  PATHS /usr/include/x86_64-linux-gnu /usr/include /usr/local/cuda/include)
find_library(CUDNN_LIBRARY cudnn
  HINTS ${CUDAToolkit_LIBRARY_DIR} ${_cudnn_hints}
  PATH_SUFFIXES lib64 lib lib/x64 targets/x86_64-linux/lib
  PATHS /usr/lib/x86_64-linux-gnu /usr/lib /usr/local/cuda/lib64)

# _cudnn_read_version(<header> <out>): "major.minor.patch" from a cudnn_version header, or "".
function(_cudnn_read_version header out)
  file(READ "${header}" text)
  set(parts "")
  foreach(field MAJOR MINOR PATCHLEVEL)
    if(text MATCHES "define CUDNN_${field} +([0-9]+)")
      list(APPEND parts ${CMAKE_MATCH_1})
    endif()
  endforeach()
  list(LENGTH parts n)
  if(n EQUAL 3)
    list(JOIN parts "." version)
    set(${out} ${version} PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

if(CUDNN_INCLUDE_DIR)
  # Newer layouts keep the numbers in cudnn_version_v<major>.h and include it.
  file(GLOB _cudnn_headers "${CUDNN_INCLUDE_DIR}/cudnn_version.h" "${CUDNN_INCLUDE_DIR}/cudnn_version_v*.h")
  foreach(_header IN LISTS _cudnn_headers)
    if(NOT CUDNN_VERSION)
      _cudnn_read_version("${_header}" CUDNN_VERSION)
    endif()
  endforeach()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDNN
  REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR
  VERSION_VAR CUDNN_VERSION)

if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn UNKNOWN IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES
    IMPORTED_LOCATION "${CUDNN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()
mark_as_advanced(CUDNN_INCLUDE_DIR CUDNN_LIBRARY)
