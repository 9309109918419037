# apps/ocr's networks against ONNX Runtime on the OCR test images: ocr_run --dump writes each
# network's input and output (the detector's probability map, the recogniser's class
# probabilities per batch), and bench/ort/ort_check.js runs ONNX Runtime on the same inputs and
# requires a relative error of at most 1e-3 (the largest difference over the largest value; it
# prints the elementwise errors too). Skipped (CTest's
# SKIP_REGULAR_EXPRESSION matches "skipped:") when onnxruntime-node is not installed (DSL_BENCH_PEERS=1 scripts/setup.sh) or an image or
# model is missing. -DRUN=<ocr_run> -DNODE=<node> -DCHECK=<ort_check.js> -DORT=<peers/ort>
# -DMODELS=<models/ocr> -DIMAGES=<rendered images dir> -DOUT=<scratch>.
if(NOT EXISTS ${ORT}/node_modules/onnxruntime-node/package.json)
  message(STATUS "skipped: onnxruntime-node is not in ${ORT} (DSL_BENCH_PEERS=1 scripts/setup.sh)")
  return()
endif()
file(GLOB images ${IMAGES}/*.png)
if(EXISTS ${MODELS}/page.png)
  list(APPEND images ${MODELS}/page.png)
endif()
if(NOT images OR NOT EXISTS ${MODELS}/ch_PP-OCRv4_det_infer.onnx)
  message(STATUS "skipped: no test images or no models")
  return()
endif()
set(ENV{DSL_ORT_DIR} ${ORT})
foreach(image ${images})
  get_filename_component(name ${image} NAME_WE)
  set(dir ${OUT}/${name})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${RUN} ${image} ${dir}/boxes.png --dump ${dir}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ocr_run ${image}: status ${rc}\n${out}\n${err}")
  endif()
  set(pairs ${MODELS}/ch_PP-OCRv4_det_infer.onnx detector_input detector_output)
  file(GLOB batches ${dir}/recogniser_input_*.npy)
  foreach(batch ${batches})
    get_filename_component(b ${batch} NAME_WE)
    string(REPLACE "input" "output" o ${b})
    list(APPEND pairs ${MODELS}/ch_PP-OCRv4_rec_infer.onnx ${b} ${o})
  endforeach()
  while(pairs)
    list(POP_FRONT pairs model input output)
    execute_process(COMMAND ${NODE} ${CHECK} ${model} ${dir}/${input}.npy ${dir}/${output}.npy
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(STRIP "${out}" out)
    message(STATUS "${name}: ${out}")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${name}: ${output} differs from ONNX Runtime's\n${out}\n${err}")
    endif()
  endwhile()
endforeach()
