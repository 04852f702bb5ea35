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
