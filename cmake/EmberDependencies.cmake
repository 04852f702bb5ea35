# Third-party libraries, found once for every Ember target.

find_package(OpenMP REQUIRED COMPONENTS CXX)

# OpenBLAS, OpenMP flavour (libopenblas-openmp-dev): see Note [One thread pool]
# in core/src/runtime/parallel.cpp. Debian installs it in its own folder.
find_library(EMBER_OPENBLAS_LIBRARY NAMES openblas
  PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp
  NO_DEFAULT_PATH)
find_path(EMBER_OPENBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp
  NO_DEFAULT_PATH)
if(NOT EMBER_OPENBLAS_LIBRARY OR NOT EMBER_OPENBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "OpenBLAS (OpenMP flavour) not found: run scripts/install_deps.sh "
                      "(Debian package libopenblas-openmp-dev)")
endif()
add_library(ember_openblas INTERFACE)
target_link_libraries(ember_openblas INTERFACE ${EMBER_OPENBLAS_LIBRARY})
target_include_directories(ember_openblas SYSTEM INTERFACE ${EMBER_OPENBLAS_INCLUDE_DIR})

# oneDNN (Debian's libdnnl-dev, 2.x): convolutions, pooling and normalization
# on CPU. Debian builds it with DNNL_CPU_RUNTIME=OMP against libgomp (see
# dnnl_config.h), so its primitives run on the same OpenMP pool as Ember's
# loops and OpenBLAS (Note [One thread pool] in core/src/runtime/parallel.cpp).
find_library(EMBER_DNNL_LIBRARY NAMES dnnl)
find_path(EMBER_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
if(NOT EMBER_DNNL_LIBRARY OR NOT EMBER_DNNL_INCLUDE_DIR)
  message(FATAL_ERROR "oneDNN not found: run scripts/install_deps.sh (Debian package libdnnl-dev)")
endif()
file(STRINGS ${EMBER_DNNL_INCLUDE_DIR}/oneapi/dnnl/dnnl_config.h _ember_dnnl_runtime
  REGEX "^#define DNNL_CPU_RUNTIME ")
if(NOT _ember_dnnl_runtime MATCHES "DNNL_RUNTIME_OMP")
  message(FATAL_ERROR "oneDNN at ${EMBER_DNNL_LIBRARY} is not built with the OpenMP CPU runtime "
                      "(${_ember_dnnl_runtime}); Ember needs one shared OpenMP pool")
endif()
add_library(ember_dnnl INTERFACE)
target_link_libraries(ember_dnnl INTERFACE ${EMBER_DNNL_LIBRARY})
target_include_directories(ember_dnnl SYSTEM INTERFACE ${EMBER_DNNL_INCLUDE_DIR})

# Ember::core inflates the code/ files of TorchScript archives and Ember::datasets
# reads gzipped IDX files (MNIST) through zlib (Debian's zlib1g-dev). Found before
# the EMBER_CORE_ONLY return below: core links it.
find_package(ZLIB)
if(NOT ZLIB_FOUND)
  message(FATAL_ERROR "zlib not found (Ember::core and Ember::datasets need it): run scripts/install_deps.sh "
                      "(Debian package zlib1g-dev)")
endif()

# EMBER_CORE_ONLY: core needs nothing below (the other libraries do).
if(EMBER_CORE_ONLY)
  return()
endif()

# Ember::io decodes and encodes images through libjpeg-turbo and libpng
# (Debian's libjpeg62-turbo-dev and libpng-dev); only Ember::io links them.
find_package(JPEG)
if(NOT JPEG_FOUND)
  message(FATAL_ERROR "libjpeg-turbo not found (Ember::io needs it): run scripts/install_deps.sh "
                      "(Debian package libjpeg62-turbo-dev)")
endif()
find_package(PNG)
if(NOT PNG_FOUND)
  message(FATAL_ERROR "libpng not found (Ember::io needs it): run scripts/install_deps.sh "
                      "(Debian package libpng-dev)")
endif()

# Audio and video IO (io/src/audio, io/src/video): libsox and FFmpeg, each optional
# (EMBER_WITH_SOX, EMBER_WITH_FFMPEG: AUTO uses what pkg-config finds, ON requires
# it, OFF skips it). Audio needs either one; video needs FFmpeg, else its functions raise.
find_package(PkgConfig)
set(EMBER_HAS_SOX OFF)
if(NOT EMBER_WITH_SOX STREQUAL "OFF" AND PKG_CONFIG_FOUND)
  pkg_check_modules(EMBER_SOX IMPORTED_TARGET sox)
  if(EMBER_SOX_FOUND)
    set(EMBER_HAS_SOX ON)
  endif()
endif()
if(EMBER_WITH_SOX STREQUAL "ON" AND NOT EMBER_HAS_SOX)
  message(FATAL_ERROR "EMBER_WITH_SOX=ON but libsox was not found: run scripts/install_deps.sh "
                      "(Debian packages libsox-dev libsox-fmt-all)")
endif()
set(EMBER_HAS_FFMPEG OFF)
if(NOT EMBER_WITH_FFMPEG STREQUAL "OFF" AND PKG_CONFIG_FOUND)
  pkg_check_modules(EMBER_FFMPEG libavformat libavcodec libavutil libswscale libswresample)
  if(EMBER_FFMPEG_FOUND)
    set(EMBER_HAS_FFMPEG ON)
    # A plain INTERFACE target (as ember_openblas) so a static Ember::io exports it.
    add_library(ember_ffmpeg INTERFACE)
    target_link_libraries(ember_ffmpeg INTERFACE ${EMBER_FFMPEG_LINK_LIBRARIES})
    target_include_directories(ember_ffmpeg SYSTEM INTERFACE ${EMBER_FFMPEG_INCLUDE_DIRS})
  endif()
endif()
if(EMBER_WITH_FFMPEG STREQUAL "ON" AND NOT EMBER_HAS_FFMPEG)
  message(FATAL_ERROR "EMBER_WITH_FFMPEG=ON but FFmpeg was not found: run scripts/install_deps.sh "
                      "(Debian packages libavformat-dev libavcodec-dev libavutil-dev libswscale-dev "
                      "libswresample-dev)")
endif()
message(STATUS "Ember::io: audio backends SoX ${EMBER_HAS_SOX}, FFmpeg ${EMBER_HAS_FFMPEG}; "
               "video ${EMBER_HAS_FFMPEG}")

# Ember::datasets reads Pascal VOC's XML annotations through expat (Debian's
# libexpat1-dev); zlib is found above, with core's dependencies.
find_package(EXPAT)
if(NOT EXPAT_FOUND)
  message(FATAL_ERROR "expat not found (Ember::datasets needs it): run scripts/install_deps.sh "
                      "(Debian package libexpat1-dev)")
endif()

# Ember::text: SentencePiece through Debian's libsentencepiece (0.1.97) and RE2
# (libre2-dev) for the regex tokenizers; both required for the text library.
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found (Ember::text finds SentencePiece and RE2 with it): "
                      "run scripts/install_deps.sh")
endif()
pkg_check_modules(EMBER_SENTENCEPIECE sentencepiece)
pkg_check_modules(EMBER_RE2 re2)
if(NOT EMBER_SENTENCEPIECE_FOUND OR NOT EMBER_RE2_FOUND)
  message(FATAL_ERROR "SentencePiece or RE2 not found (Ember::text needs both): run scripts/install_deps.sh "
                      "(Debian packages libsentencepiece-dev libre2-dev)")
endif()
# Plain INTERFACE targets (as ember_ffmpeg) so a static Ember::text exports them.
add_library(ember_sentencepiece INTERFACE)
target_link_libraries(ember_sentencepiece INTERFACE ${EMBER_SENTENCEPIECE_LINK_LIBRARIES})
target_include_directories(ember_sentencepiece SYSTEM INTERFACE ${EMBER_SENTENCEPIECE_INCLUDE_DIRS})
add_library(ember_re2 INTERFACE)
target_link_libraries(ember_re2 INTERFACE ${EMBER_RE2_LINK_LIBRARIES})
target_include_directories(ember_re2 SYSTEM INTERFACE ${EMBER_RE2_INCLUDE_DIRS})
