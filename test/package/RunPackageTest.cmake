# Installs the dsl build in BUILD_DIR into a fresh prefix under WORK_DIR, then configures, builds
# and runs the project in PROJECT_DIR against it: the check that find_package(dsl) works.
foreach(var BUILD_DIR PROJECT_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunPackageTest.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${WORK_DIR}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build --parallel 2)
run(${WORK_DIR}/build/aot_program)
execute_process(COMMAND ${WORK_DIR}/build/jit_program WORKING_DIRECTORY ${WORK_DIR}/build
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "jit_program failed (${status}):\n${out}\n${err}")
endif()
message(STATUS "${out}")
