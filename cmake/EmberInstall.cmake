# Installs the CMake package: find_package(Ember REQUIRED COMPONENTS core).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(EMBER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Ember)
get_property(EMBER_COMPONENTS GLOBAL PROPERTY EMBER_COMPONENTS)
install(EXPORT EmberTargets NAMESPACE Ember:: DESTINATION ${EMBER_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/EmberConfig.cmake.in
  ${PROJECT_BINARY_DIR}/EmberConfig.cmake INSTALL_DESTINATION ${EMBER_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/EmberConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/EmberConfig.cmake ${PROJECT_BINARY_DIR}/EmberConfigVersion.cmake
  DESTINATION ${EMBER_CMAKE_DIR})
# Private link dependencies must be in the export set for static builds.
install(TARGETS ember_build_flags ember_openblas ember_dnnl EXPORT EmberTargets)
foreach(dep ember_sentencepiece ember_re2 ember_ffmpeg)  # absent with EMBER_CORE_ONLY (or without FFmpeg)
  if(TARGET ${dep})
    install(TARGETS ${dep} EXPORT EmberTargets)
  endif()
endforeach()
