# FindGloo: Facebook's Gloo collectives library (Debian: libgloo-dev, 0.5.0).
# Debian ships a GlooConfig.cmake, but its imported target is an unnamespaced
# `gloo` built only for RelWithDebInfo; this module finds the header and the
# library directly and makes the plain INTERFACE target ember_gloo (as
# ember_sentencepiece) so that a static Ember::distributed can export it.
# Debian's libgloo.so itself needs libhiredis and libibverbs at run time; the
# package brings them and nothing of them appears on Ember's link line.
find_path(GLOO_INCLUDE_DIR gloo/transport/tcp/device.h)
find_library(GLOO_LIBRARY gloo)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Gloo REQUIRED_VARS GLOO_LIBRARY GLOO_INCLUDE_DIR)
if(Gloo_FOUND AND NOT TARGET ember_gloo)
  add_library(ember_gloo INTERFACE)
  target_link_libraries(ember_gloo INTERFACE ${GLOO_LIBRARY})
  target_include_directories(ember_gloo SYSTEM INTERFACE ${GLOO_INCLUDE_DIR})
endif()
