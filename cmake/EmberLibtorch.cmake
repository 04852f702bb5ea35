# Debian's libtorch-dev (libtorch 1.13), for the programs that run Ember
# beside libtorch in one process: the benchmark harness (benchmarks/) and the
# differential fuzzer (benchmarks/difffuzz/), and the libtorch program of the
# ctest compat.libtorch_exchange (tests/compat/libtorch/, which links libtorch
# alone). Never linked into an Ember library.
# Sets EMBER_HAS_LIBTORCH and, when found, the INTERFACE target ember_libtorch.
# The libraries are found directly rather than through TorchConfig.cmake,
# whose Caffe2 dependency lookups can fail a configure that only wanted to
# know whether libtorch is there.
# Included by each directory that asks (tests/compat, benchmarks,
# benchmarks/difffuzz): EMBER_HAS_LIBTORCH is a directory-scoped variable, so
# the guard is per directory and the target is made once.
include_guard(DIRECTORY)
set(EMBER_HAS_LIBTORCH OFF)
find_library(EMBER_LIBTORCH_TORCH torch)
find_library(EMBER_LIBTORCH_TORCH_CPU torch_cpu)
find_library(EMBER_LIBTORCH_C10 c10)
find_path(EMBER_LIBTORCH_INCLUDE ATen/ATen.h)
find_path(EMBER_LIBTORCH_API_INCLUDE torch/torch.h PATH_SUFFIXES torch/csrc/api/include)
if(EMBER_LIBTORCH_TORCH AND EMBER_LIBTORCH_TORCH_CPU AND EMBER_LIBTORCH_C10 AND EMBER_LIBTORCH_INCLUDE
   AND EMBER_LIBTORCH_API_INCLUDE)
  set(EMBER_HAS_LIBTORCH ON)
  if(NOT TARGET ember_libtorch)
    add_library(ember_libtorch INTERFACE)
    target_link_libraries(ember_libtorch INTERFACE
      ${EMBER_LIBTORCH_TORCH} ${EMBER_LIBTORCH_TORCH_CPU} ${EMBER_LIBTORCH_C10})
    target_include_directories(ember_libtorch SYSTEM INTERFACE
      ${EMBER_LIBTORCH_INCLUDE} ${EMBER_LIBTORCH_API_INCLUDE})
  endif()
endif()
