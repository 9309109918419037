# expect(<exit status> <regex the output must match> <arguments...>) for the command-line tests:
# runs ${EXPECT_COMMAND} (a list: the program, and anything before its arguments) with the
# arguments, and counts a wrong exit status or output in `failures` with a message saying which.
function(expect status regex)
  execute_process(COMMAND ${EXPECT_COMMAND} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(text "${out}${err}")
  if(NOT rc STREQUAL "${status}")
    message(SEND_ERROR "[${ARGN}]: exit status ${rc}, expected ${status}\n${text}")
    math(EXPR failures "${failures} + 1")
  elseif(NOT text MATCHES "${regex}")
    message(SEND_ERROR "[${ARGN}]: the output does not match \"${regex}\":\n${text}")
    math(EXPR failures "${failures} + 1")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()
