# dsl-onnx on the command line: info, run (a TensorProto input, a .npy output read back by
# `run` itself as the input of a second run), and the exit status and one-line message of a
# bad file. Run with -DTOOL=<dsl-onnx> -DNODE=<libonnx-testdata node folder> -DOUT=<scratch>.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(model ${NODE}/test_relu/model.onnx)

execute_process(COMMAND ${TOOL} info ${model} RESULT_VARIABLE rc OUTPUT_VARIABLE info)
if(NOT rc EQUAL 0 OR NOT info MATCHES "operators: Relu x1" OR NOT info MATCHES "supported: every")
  message(FATAL_ERROR "dsl-onnx info: status ${rc}, output:\n${info}")
endif()

execute_process(COMMAND ${TOOL} run ${model} --input x=${NODE}/test_relu/test_data_set_0/input_0.pb
                        --output-dir ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT}/y.npy)
  message(FATAL_ERROR "dsl-onnx run: status ${rc}\n${out}\n${err}")
endif()
file(READ ${OUT}/y.npy head LIMIT 6 HEX)
if(NOT head STREQUAL "934e554d5059")
  message(FATAL_ERROR "dsl-onnx run wrote ${OUT}/y.npy without numpy's magic: ${head}")
endif()
# The output as an input: relu of relu is the same tensor.
file(MAKE_DIRECTORY ${OUT}/again)
execute_process(COMMAND ${TOOL} run ${model} --input x=${OUT}/y.npy --output-dir ${OUT}/again
                RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ ${OUT}/y.npy first HEX)
file(READ ${OUT}/again/y.npy second HEX)
if(NOT rc EQUAL 0 OR NOT first STREQUAL second)
  message(FATAL_ERROR "dsl-onnx run on its own .npy output: status ${rc}, or a different result\n${err}")
endif()

execute_process(COMMAND ${TOOL} info ${OUT}/no_such_model.onnx
                RESULT_VARIABLE rc ERROR_VARIABLE err)
string(STRIP "${err}" err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "no_such_model.onnx: cannot open" OR err MATCHES "\n")
  message(FATAL_ERROR "dsl-onnx info of a missing file: status ${rc} (want 2), message:\n${err}")
endif()
execute_process(COMMAND ${TOOL} frobnicate RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "dsl-onnx with a bad command: status ${rc} (want 2)")
endif()

# quantize: PyTorch's Conv2d test model (its weights are initializers), calibrated on its input,
# every layer quantized; the QDQ model is read back (ONNX's checker passes) and run.
set(conv ${NODE}/../pytorch-converted/test_Conv2d)
file(MAKE_DIRECTORY ${OUT}/calibration)
file(COPY ${conv}/test_data_set_0/input_0.pb DESTINATION ${OUT}/calibration)
execute_process(COMMAND ${TOOL} quantize ${conv}/model.onnx --calibrate ${OUT}/calibration
                        --method entropy --quantize-first-last -o ${OUT}/conv_int8.onnx
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "quantized 1 of 1 operators on 1 samples")
  message(FATAL_ERROR "dsl-onnx quantize: status ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${TOOL} info ${OUT}/conv_int8.onnx RESULT_VARIABLE rc OUTPUT_VARIABLE info)
# DequantizeLinear of x, of the int8 weights, of the int32 bias and of y.
if(NOT rc EQUAL 0 OR NOT info MATCHES "DequantizeLinear x4" OR NOT info MATCHES "QuantizeLinear x2")
  message(FATAL_ERROR "dsl-onnx info of the quantized model: status ${rc}, output:\n${info}")
endif()
file(MAKE_DIRECTORY ${OUT}/int8)
execute_process(COMMAND ${TOOL} run ${OUT}/conv_int8.onnx
                        --input 0=${conv}/test_data_set_0/input_0.pb --output-dir ${OUT}/int8
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dsl-onnx run of the quantized model: status ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${TOOL} quantize ${conv}/model.onnx --calibrate ${OUT}/no_such_dir
                        -o ${OUT}/x.onnx RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "no_such_dir: cannot open the calibration directory")
  message(FATAL_ERROR "dsl-onnx quantize without samples: status ${rc} (want 2)\n${err}")
endif()
