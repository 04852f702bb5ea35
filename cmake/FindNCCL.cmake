# FindNCCL: NVIDIA's NCCL (nccl.h and libnccl), for ProcessGroupNCCL
# (docs/distributed.md). Looked for in NCCL_ROOT / NCCL_HOME (CMake or
# environment variables), the CUDA toolkit (/usr/local/cuda ships it), and the
# usual prefixes; a pip wheel's copy (nvidia/nccl, which has only
# libnccl.so.2) is found through NCCL_ROOT pointing at it. Makes the INTERFACE
# target ember_nccl (as ember_gloo) and NCCL_VERSION from the header.
set(_ember_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_LIBRARY_ROOT} /usr/local/cuda)
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_ember_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_ember_nccl_hints} PATH_SUFFIXES lib64 lib)
if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _ember_nccl_version_lines REGEX "#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_part} +([0-9]+)" _match "${_ember_nccl_version_lines}")
    set(_ember_nccl_${_part} ${CMAKE_MATCH_1})
  endforeach()
  set(NCCL_VERSION "${_ember_nccl_MAJOR}.${_ember_nccl_MINOR}.${_ember_nccl_PATCH}")
endif()
include(FindPackageHandleStandardArgs)
# 2.14: non-blocking communicators (ncclConfig_t), which the watchdog needs.
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)
if(NCCL_FOUND AND NCCL_VERSION VERSION_LESS 2.14)
  message(STATUS "NCCL ${NCCL_VERSION} is older than 2.14 (no non-blocking communicators): not used")
  set(NCCL_FOUND FALSE)
endif()
if(NCCL_FOUND AND NOT TARGET ember_nccl)
  add_library(ember_nccl INTERFACE)
  target_link_libraries(ember_nccl INTERFACE ${NCCL_LIBRARY})
  # nccl.h includes cuda_runtime.h.
  target_include_directories(ember_nccl SYSTEM INTERFACE ${NCCL_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
endif()
