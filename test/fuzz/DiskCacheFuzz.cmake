# fuzz.disk_cache: runs dsl_fuzz twice over the same seeds with the JIT's disk cache in a fresh
# directory. In the first pass every case's Funcs have the names of the other cases' (f0, f1,
# ...), so a key that missed a difference between two pipelines would load the other one's
# code; in the second pass the cases load their code from the cache without lowering. Both must
# match the reference, and the second must find every pipeline in the cache.
#   cmake -DFUZZ=<dsl_fuzz> -DDIR=<cache directory> -P DiskCacheFuzz.cmake
file(REMOVE_RECURSE "${DIR}")
foreach(pass first second)
  execute_process(COMMAND "${FUZZ}" --seed 20000 --cases 300 --disk-cache "${DIR}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  message("${pass} pass:\n${output}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the ${pass} pass failed (exit status ${status})")
  endif()
endforeach()
if(NOT output MATCHES "disk cache: ([0-9]+) hits, ([0-9]+) misses")
  message(FATAL_ERROR "the second pass printed no disk cache counts")
endif()
if(CMAKE_MATCH_1 LESS 300 OR NOT CMAKE_MATCH_2 EQUAL 0)
  message(FATAL_ERROR "the second pass loaded ${CMAKE_MATCH_1} pipelines from the cache and "
                      "missed ${CMAKE_MATCH_2}; every pipeline compiled in the first pass must "
                      "be found")
endif()
file(REMOVE_RECURSE "${DIR}")
