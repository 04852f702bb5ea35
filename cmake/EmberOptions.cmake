# Compiler flags, ccache, sanitizers and the CUDA switch.

if(EMBER_USE_CCACHE)
  find_program(EMBER_CCACHE ccache)
  if(EMBER_CCACHE)
    # ccache caches compiles that use a precompiled header (core's, difffuzz's)
    # only with this sloppiness (ccache manual, "Precompiled headers").
    # CCACHE_BASEDIR makes the paths under the source tree relative, so another
    # checkout of the same sources (a git worktree, a clean clone) hits the cache
    # instead of compiling everything again (nothing in Ember expands __FILE__).
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} ${EMBER_CCACHE})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} ${EMBER_CCACHE})
  endif()
endif()

# Flags for Ember's own targets (not for outside projects linking Ember).
add_library(ember_build_flags INTERFACE)
target_compile_options(ember_build_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -fno-math-errno -ffp-contract=fast>)
# x86-64: the AVX2/FMA/F16C level (x86-64-v3) is the baseline Ember targets.
# aarch64 needs no flags: NEON is always there.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  target_compile_options(ember_build_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-mavx2 -mfma -mf16c>)
endif()

if(EMBER_SANITIZE)
  string(REPLACE ";" "," _ember_sanitizers "${EMBER_SANITIZE}")
  add_compile_options(-fsanitize=${_ember_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_ember_sanitizers})
endif()

# CUDA: AUTO turns it on when a CUDA compiler is found.
set(EMBER_HAS_CUDA OFF)
if(NOT EMBER_WITH_CUDA STREQUAL "OFF")
  # CI has the toolkit in its usual place but not on PATH: look there too, so
  # that a compile error in the CUDA sources fails CI.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    find_program(EMBER_NVCC nvcc)
    if(NOT EMBER_NVCC)
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_ARCHITECTURES ${EMBER_CUDA_ARCHITECTURES})
    enable_language(CUDA)
    # CMake before 3.26 does not know nvcc's C++20 flag; core's cxx_std_20
    # reaches CUDA sources as the CUDA20 dialect.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(EMBER_HAS_CUDA ON)
  elseif(EMBER_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMBER_WITH_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
message(STATUS "Ember: CUDA ${EMBER_HAS_CUDA}, sanitizers '${EMBER_SANITIZE}', shared ${BUILD_SHARED_LIBS}")
