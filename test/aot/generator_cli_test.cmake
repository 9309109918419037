# Runs the generator program (GENERATOR) with bad arguments and checks that each exits with status
# 1 and a message naming the mistake; then --help, --list and every emit. Run with
#   cmake -DGENERATOR=<program> -DWORK_DIR=<scratch folder> -P generator_cli_test.cmake
if(NOT GENERATOR OR NOT WORK_DIR)
  message(FATAL_ERROR "pass -DGENERATOR=<program> -DWORK_DIR=<folder>")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
set(failures 0)

set(EXPECT_COMMAND ${GENERATOR})
include(${CMAKE_CURRENT_LIST_DIR}/../common/ExpectCommand.cmake)

# expect_file(<file> <regex>): the file was written and its text matches.
function(expect_file file pattern)
  if(NOT EXISTS ${file})
    message(SEND_ERROR "no ${file} was written")
    math(EXPR failures "${failures} + 1")
  else()
    file(READ ${file} text)
    if(NOT text MATCHES "${pattern}")
      message(SEND_ERROR "${file} does not match \"${pattern}\"")
      math(EXPR failures "${failures} + 1")
    endif()
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

set(dir ${WORK_DIR}/out)
expect(1 "missing -g <generator>; registered generators: box_blur, pixel_op")
expect(1 "missing -o <output dir>" -g box_blur)
expect(1 "-o needs a value" -g box_blur -o)
expect(1 "no generator named \"blur\". Registered generators: box_blur, pixel_op" -g blur -o ${dir})
expect(1 "unknown argument \"--frobnicate\"" -g box_blur -o ${dir} --frobnicate)
expect(1 "no GeneratorParam \"size\". Its GeneratorParams are: target, autoscheduler, auto_schedule, machine_params, radius, parallel_rows"
       -g box_blur -o ${dir} size=3)
expect(1 "\"gain\" is an Input" -g pixel_op -o ${dir} input.type=uint8 gain=2)
expect(1 "GeneratorParam \"radius\": cannot use \"abc\"; write an integer"
       -g box_blur -o ${dir} radius=abc)
expect(1 "GeneratorParam \"radius\": cannot use \"99\"; give a value in \\[1, 8\\]"
       -g box_blur -o ${dir} radius=99)
expect(1 "\"radius\" is given twice" -g box_blur -o ${dir} radius=2 radius=3)
expect(1 "GeneratorParam \"parallel_rows\": cannot use \"yes\"; write true or false"
       -g box_blur -o ${dir} parallel_rows=yes)
expect(1 "GeneratorParam \"bias\": cannot use \"1e9\"; give a value in \\[-100, 100\\]"
       -g pixel_op -o ${dir} input.type=uint8 bias=1e9)
expect(1 "GeneratorParam \"op\": cannot use \"div\"; use one of add max mul"
       -g pixel_op -o ${dir} input.type=uint8 op=div)
expect(1 "GeneratorParam \"input.type\": cannot use \"complex\"; use one of bool, int8"
       -g pixel_op -o ${dir} input.type=complex)
expect(1 "the element type of Input \"input\" is not set; pass input.type=<type>"
       -g pixel_op -o ${dir})
expect(1 "GeneratorParam \"target\": cannot use \"host-avx9\".*avx9"
       -g box_blur -o ${dir} target=host-avx9)
expect(1 "unknown emit \"pdf\"; valid emits are: static_library, h, object, stmt, assembly, llvm_ir"
       -g box_blur -o ${dir} -e static_library,pdf)
expect(1 "\"9lives\" is not a C identifier" -g box_blur -o ${dir} -f 9lives)

expect(0 "box_blur.*radius +int32, default 1, in \\[1, 8\\].*input +buffer of uint16, 2 dimensions.*pixel_op.*op +one of add max mul, default add.*input.type +type, default unset.*gain +float32, default 1, in \\[0, 10\\].*output +buffer of float32"
       --help)
expect(0 "^box_blur\npixel_op\ntwo_outputs\n$" --list)
# Halide's flags and words: -e c_header and llvm_assembly, -p (accepted, nothing loaded) and -S
# (the autoscheduler auto_schedule=true uses).
expect(0 "" -g box_blur -o ${dir} -e static_library,c_header,llvm_assembly -f blur_halide_words
       -p /nonexistent/libautoschedule_mullapudi2016.so -S Mullapudi2016 auto_schedule=true)
foreach(ext a h ll)
  if(NOT EXISTS ${dir}/blur_halide_words.${ext})
    message(SEND_ERROR "-e c_header,llvm_assembly wrote no ${dir}/blur_halide_words.${ext}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
# Two Outputs: one function with a buffer for each. generate() reads "scaled.type", which must
# then be set.
expect(1 "the Output \"scaled\" has no type yet: set it on the command line \\(scaled.type=float32\\)"
       -g two_outputs -o ${dir})
expect(0 "" -g two_outputs -o ${dir} -f two_outputs_default scaled.type=uint16)
expect_file(${dir}/two_outputs_default.h
            "two_outputs_default\\(dsl_buffer_t \\*_?input, float _?factor, dsl_buffer_t \\*_?scaled, dsl_buffer_t \\*_?row_sums\\)")

# Every emit, with its file.
expect(0 "" -g box_blur -o ${dir} -e static_library,h,object,stmt,assembly,llvm_ir -f blur_all
       radius=2 target=host-avx2)
foreach(ext a h o stmt s ll)
  if(NOT EXISTS ${dir}/blur_all.${ext})
    message(SEND_ERROR "-e wrote no ${dir}/blur_all.${ext}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
# The GPU kernels' code: OpenCL C for an OpenCL target, PTX for a CUDA one.
expect(0 "" -g box_blur -o ${dir} -e cl,static_library -f blur_cl target=host-opencl)
expect(0 "" -g box_blur -o ${dir} -e ptx -f blur_ptx target=host-cuda_capability_80)
expect_file(${dir}/blur_cl.cl "__kernel void")
expect_file(${dir}/blur_ptx.ptx "\\.target sm_80")
expect_file(${dir}/blur_ptx.ptx "\\.entry")
# The autoscheduler's schedule (autoscheduler=dsl, or Halide 14's auto_schedule=true), as source.
expect(0 "" -g box_blur -o ${dir} -e static_library,schedule -f blur_auto autoscheduler=dsl
       machine_params=2,1048576,40)
expect(0 "" -g box_blur -o ${dir} -e schedule -f blur_auto14 auto_schedule=true)
expect_file(${dir}/blur_auto.schedule.h "machine 2,1048576,40.*blur_x.compute_at\\(output, ")
expect_file(${dir}/blur_auto14.schedule.h "pipeline.get_func\\(\"output\"\\)")
expect_file(${dir}/blur_auto.a ".")
# The measured tuner: a few seconds, its log, and the fastest schedule as source.
# Two processes compile candidates at once.
expect(0 "box_blur: tuned for 3 s, [0-9]+ candidates \\([0-9]+ refused, [0-9]+ compiled by helper processes\\): [0-9.e+-]+ ms against"
       -g box_blur -o ${dir} --tune 3 --tune-log ${dir}/tune.jsonl --tune-jobs 2
       -e static_library,schedule -f blur_tuned machine_params=2,1048576,40)
expect_file(${dir}/blur_tuned.schedule.h "dsl auto_tune")
expect_file(${dir}/tune.jsonl "\"candidate\": 1")
expect_file(${dir}/blur_tuned.a ".")
expect(1 "--tune: cannot use \"soon\"; write a non-negative number" -g box_blur -o ${dir} --tune soon)
expect(1 "--tune-jobs: cannot use \"0\"; write a whole number of processes from 1 to 1024"
       -g box_blur -o ${dir} --tune 1 --tune-jobs 0)
expect(1 "-e schedule writes the schedule the autoscheduler chose, but none ran; add autoscheduler=dsl"
       -g box_blur -o ${dir} -e schedule)
expect(1 "MachineParams: cannot read \"lots\"" -g box_blur -o ${dir} autoscheduler=dsl machine_params=lots)
expect(1 "-e ptx writes the PTX of CUDA kernels, but the target \"[^\"]*\" has no cuda feature"
       -g box_blur -o ${dir} -e ptx)
# The default function name is the generator's, and the default emits are static_library,h.
expect(0 "" -g box_blur -o ${dir}/defaults)
foreach(ext a h)
  if(NOT EXISTS ${dir}/defaults/box_blur.${ext})
    message(SEND_ERROR "the defaults wrote no ${dir}/defaults/box_blur.${ext}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} check(s) failed")
endif()
message(STATUS "generator command line: all checks passed")
