# ctest driver: install Ember from EMBER_BINARY_DIR into WORK_DIR/prefix, then
# configure, build and run the consumer project against it.
file(REMOVE_RECURSE ${WORK_DIR})
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
run_step(${CMAKE_COMMAND} --install ${EMBER_BINARY_DIR} --prefix ${WORK_DIR}/prefix)
# A sanitizer build of Ember needs the consumer linked with the same runtime
# (ASan must come first in the initial library list).
set(_flags "")
if(SANITIZE)
  string(REPLACE ";" "," _san "${SANITIZE}")
  set(_flags "-fsanitize=${_san}")
endif()
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build -G Ninja
         -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
         "-DCMAKE_CXX_FLAGS=${_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${_flags}")
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# Run as on a user's machine: nothing in LD_LIBRARY_PATH points at Ember.
set(_run ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH)
run_step(${_run} ${WORK_DIR}/build/consumer)
run_step(${_run} ${WORK_DIR}/build/io_consumer)
run_step(${_run} ${WORK_DIR}/build/datasets_consumer)
run_step(${_run} ${WORK_DIR}/build/backend_consumer)
run_step(${_run} ${WORK_DIR}/build/torch_consumer)
message(STATUS "consumer built and ran against the installed Ember")
