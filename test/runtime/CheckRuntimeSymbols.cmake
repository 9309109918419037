# Checks the claims that let generated libraries carry the runtime (src/runtime/Runtime.h):
#   - the runtime archive needs nothing from the C++ library: no undefined C++ (_Z...) symbols,
#     no __cxa_* / __gxx_* / _Unwind_* (exceptions, guards, atexit);
#   - every global symbol it defines is weak, and the API is all there;
#   - the plain C programs linked against it do not depend on libstdc++.
# Run as: cmake -DNM=... -DREADELF=... -DARCHIVE=... -DPROGRAMS=a|b -P CheckRuntimeSymbols.cmake
cmake_minimum_required(VERSION 3.20)

set(api
  dsl_runtime_malloc dsl_runtime_free dsl_runtime_last_error dsl_runtime_clear_last_error
  dsl_runtime_parallel_for dsl_runtime_report_error dsl_set_num_threads dsl_set_error_handler
  dsl_runtime_error_bad_dimensions dsl_runtime_error_bad_type dsl_runtime_error_buffer_is_null
  dsl_runtime_error_access_out_of_bounds dsl_runtime_error_output_too_small
  dsl_runtime_error_output_read_out_of_bounds
  dsl_runtime_error_bound_too_small dsl_runtime_error_region_smaller_than_window
  dsl_runtime_error_param_too_small
  dsl_runtime_error_param_too_large dsl_runtime_error_out_of_memory
  dsl_runtime_error_buffer_too_large dsl_runtime_error_buffer_extent_negative
  dsl_runtime_error_buffer_span_too_large dsl_runtime_error_output_overlaps
  dsl_runtime_error_int_param_too_small dsl_runtime_error_int_param_too_large
  dsl_runtime_error_uint_param_too_small dsl_runtime_error_uint_param_too_large
  dsl_runtime_opencl_launch dsl_runtime_cuda_launch dsl_buffer_copy_to_host
  dsl_buffer_device_free dsl_buffer_set_host_dirty
  dsl_npu_create dsl_npu_run dsl_npu_encode dsl_npu_decode dsl_npu_malloc)

execute_process(COMMAND ${NM} -A --format=posix ${ARCHIVE}
  OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} ${ARCHIVE} failed")
endif()
string(REPLACE "\n" ";" lines "${symbols}")

set(problems "")
set(defined "")
foreach(line ${lines})
  # "archive[member]: name type value size"
  if(NOT line MATCHES "^([^ ]+): ([^ ]+) ([A-Za-z])")
    continue()
  endif()
  set(where "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  set(type "${CMAKE_MATCH_3}")
  if(type STREQUAL "U" AND name MATCHES "^(_Z|__cxa_|__gxx_|_Unwind_|__dynamic_cast)")
    list(APPEND problems "${where} needs ${name} from the C++ runtime")
  elseif(type MATCHES "^[TDBRCGS]$")
    list(APPEND problems
      "${where} defines ${name} as a strong symbol (type ${type}): make it weak or static")
  elseif(type MATCHES "^[WV]$")
    list(APPEND defined ${name})
  endif()
endforeach()
foreach(name ${api})
  if(NOT name IN_LIST defined)
    list(APPEND problems "${ARCHIVE} does not define ${name} as a weak symbol")
  endif()
endforeach()

string(REPLACE "|" ";" programs "${PROGRAMS}")
foreach(program ${programs})
  execute_process(COMMAND ${READELF} -d ${program} OUTPUT_VARIABLE dynamic RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    list(APPEND problems "${READELF} -d ${program} failed")
  elseif(dynamic MATCHES "libstdc\\+\\+")
    list(APPEND problems "${program} depends on libstdc++")
  endif()
endforeach()

list(LENGTH defined count)
if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "The runtime is not self-contained:\n  ${problems}")
endif()
message(STATUS "The runtime defines ${count} weak symbols and needs nothing from the C++ library.")
