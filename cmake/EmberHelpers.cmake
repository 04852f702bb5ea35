# ember_add_library(<name> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Makes target ember_<name> with alias Ember::<name>, public headers from
# <name>/include, private headers from <name>/src, and installs it in the
# Ember export set (so find_package(Ember COMPONENTS <name>) finds it).
function(ember_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  set(target ember_${name})
  add_library(${target} ${ARG_SOURCES})
  add_library(Ember::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ember_${name}
    EXPORT_NAME ${name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}
    # Installed side by side: each finds the Ember libraries it needs next to
    # itself, whatever the prefix and whatever the program's own search path
    # (a program's RUNPATH does not apply to its libraries' dependencies).
    INSTALL_RPATH "$ORIGIN")
  target_include_directories(${target}
    PUBLIC
      $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE
      ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ember_build_flags ${ARG_PRIVATE_DEPS})
  install(TARGETS ${target} EXPORT EmberTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  set_property(GLOBAL APPEND PROPERTY EMBER_COMPONENTS ${name})
endfunction()

# Build time (docs/architecture.md "Build time"): a test source spends about
# 3 s parsing gtest and the Ember headers and the rest generating code for its
# test bodies. Test sources are therefore compiled in batches (one parse per
# batch; EMBER_UNITY_TESTS) and at -Og: test bodies need no -O3, the libraries
# they call keep theirs.
function(ember_speed_up_test_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${EMBER_UNITY_TESTS} UNITY_BUILD_BATCH_SIZE 5)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-Og>)
endfunction()

# ember_add_test_suite(<library> <label> SOURCES ... [NOT_DISCOVERED pattern]):
# one test executable per library (linking dominates build time), tests
# discovered and labelled; NOT_DISCOVERED (a gtest filter pattern) names tests
# that only a driver ctest of their own runs (it prepares their inputs).
function(ember_add_test_suite library label)
  cmake_parse_arguments(ARG "" "NOT_DISCOVERED" "SOURCES;DEPS" ${ARGN})
  set(target ember_${library}_tests)
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Ember::${library} ${ARG_DEPS} GTest::gtest GTest::gtest_main ember_build_flags)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/${library}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${target} PRIVATE EMBER_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  ember_speed_up_test_build(${target})
  set(test_properties LABELS ${label})
  if(EMBER_SANITIZE MATCHES "address")
    # libsox's format modules leak on their own (fuzz/lsan_audio.supp says which);
    # full stacks are needed to match the suppressions.
    list(APPEND test_properties ENVIRONMENT
         "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/fuzz/lsan_audio.supp:fast_unwind_on_malloc=0")
  endif()
  set(discover_filter)
  if(ARG_NOT_DISCOVERED)
    set(discover_filter TEST_FILTER "-${ARG_NOT_DISCOVERED}")
  endif()
  gtest_discover_tests(${target} ${discover_filter} PROPERTIES ${test_properties} DISCOVERY_TIMEOUT 120)
endfunction()
