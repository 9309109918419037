# Runs the C program of a compiled model, then `dsl-onnx run` on the input it wrote, and compares
# the outputs byte for byte. -DPROGRAM=<C program> -DTOOL=<dsl-onnx> -DMODEL=<.onnx> -DOUT=<dir>
# -DTARGET=<the target the model was compiled for> (`dsl-onnx run` runs for it too: the same
# kernels).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT}/c ${OUT}/run)
execute_process(COMMAND ${PROGRAM} ${OUT}/c RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM}: status ${rc}\n${out}\n${err}")
endif()
message(STATUS "${out}")
set(target_args)
if(TARGET)
  set(target_args --target ${TARGET})
endif()
execute_process(COMMAND ${TOOL} run ${MODEL} --input x=${OUT}/c/x.npy --output-dir ${OUT}/run
                        ${target_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dsl-onnx run: status ${rc}\n${out}\n${err}")
endif()
foreach(output probs pooled)
  # The same .npy header (shape, type) and the same bits.
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/c/${output}.npy
                          ${OUT}/run/${output}.npy RESULT_VARIABLE different)
  if(different)
    file(READ ${OUT}/c/${output}.npy c_bytes HEX)
    file(READ ${OUT}/run/${output}.npy run_bytes HEX)
    message(FATAL_ERROR "${output}: the compiled library and dsl-onnx run differ\n"
                        "library: ${c_bytes}\nrun:     ${run_bytes}")
  endif()
endforeach()
