# Runs dsl-calibrate (CALIBRATE): it writes the machine file it is given (-o) or DSL_MACHINE_FILE
# names, with every number the cost model reads; --print writes nothing; bad arguments exit with
# status 2 and say what is wrong. Run with
#   cmake -DCALIBRATE=<program> -DWORK_DIR=<scratch folder> -P calibrate_cli_test.cmake
if(NOT CALIBRATE OR NOT WORK_DIR)
  message(FATAL_ERROR "pass -DCALIBRATE=<program> -DWORK_DIR=<folder>")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
set(failures 0)

set(EXPECT_COMMAND ${CMAKE_COMMAND} -E env DSL_MACHINE_FILE=${WORK_DIR}/env/machine.txt ${CALIBRATE})
include(${CMAKE_CURRENT_LIST_DIR}/../common/ExpectCommand.cmake)

set(names threads vector_op_ns l1_bytes_per_ns l2_bytes_per_ns llc_bytes_per_ns dram_bytes_per_ns
          dram_parallel_bytes_per_ns parallel_loop_ns l1_bytes l2_bytes llc_bytes)
function(expect_machine_file file)
  if(NOT EXISTS ${file})
    message(SEND_ERROR "dsl-calibrate wrote no ${file}")
    math(EXPR failures "${failures} + 1")
  else()
    file(READ ${file} text)
    foreach(name ${names})
      if(NOT text MATCHES "\n${name}=[0-9.e+-]+\n")
        message(SEND_ERROR "${file} has no number for ${name}:\n${text}")
        math(EXPR failures "${failures} + 1")
      endif()
    endforeach()
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

expect(2 "unknown argument \"--fast\"" --fast)
expect(2 "-o needs a file name" -o)
expect(0 "usage: dsl-calibrate" --help)
expect(0 "vector operation" --print)
if(EXISTS ${WORK_DIR}/env/machine.txt)
  message(SEND_ERROR "--print wrote ${WORK_DIR}/env/machine.txt")
  math(EXPR failures "${failures} + 1")
endif()
expect(0 "written to ${WORK_DIR}/given/machine.txt" -o ${WORK_DIR}/given/machine.txt)
expect_machine_file(${WORK_DIR}/given/machine.txt)
expect(0 "written to ${WORK_DIR}/env/machine.txt")
expect_machine_file(${WORK_DIR}/env/machine.txt)

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} check(s) failed")
endif()
