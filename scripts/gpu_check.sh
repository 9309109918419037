#!/usr/bin/env bash
# The GPU checks, for a machine with an NVIDIA GPU (and anywhere else: CUDA tests then skip).
#
#   scripts/gpu_check.sh [ctest arguments]
#       Installs what is missing, builds the library, the GPU tests, dsl_fuzz and dsl_gpu_bench
#       (no tutorials) into build-gpu/, runs the tests labelled "gpu" (every GPU schedule through
#       OpenCL and, where the CUDA driver finds a GPU, through CUDA; the PTX through ptxas; a
#       model compiled ahead of time for OpenCL and for CUDA, called from C), then the CUDA
#       checks below.
#   scripts/gpu_check.sh --prebuilt ARCHIVE|DIR
#       For a GPU machine that cannot build the project (no LLVM 19 or no package registry): runs
#       the programs that scripts/gpu_bundle.sh built and packed elsewhere, with no set-up.
#
# The CUDA checks: every GPU schedule test on CUDA (each compared with the CPU), the AOT CUDA
# library called from C, GPU schedules drawn by the fuzzer and run on CUDA for
# DSL_GPU_CHECK_FUZZ_SECONDS (default 60), the OpenCL schedule tests too where the machine has
# an OpenCL driver, and the table of dsl_gpu_bench: blur GB/s and matmul GFLOP/s, each as a
# share of the device's peak, beside cuBLAS's SGEMM where the CUDA toolkit's libraries are found.
# Then models on CUDA: small networks against the CPU, ONNX's node tests of
# test/onnx/gpu_node_tests.txt, and PP-OCRv4's two networks timed on CUDA and on the CPU.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
status=0
step() { echo; echo "=== gpu_check: $*"; }
check() {
    "$@" || {
        echo "gpu_check: FAILED: $*"
        status=1
    }
}

if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader || true
else
    echo "gpu_check: no nvidia-smi here; the CUDA schedule tests will skip."
fi

if [ "${1:-}" = "--prebuilt" ]; then
    bundle="${2:?--prebuilt needs the archive or folder that scripts/gpu_bundle.sh wrote}"
    shift 2
    if [ -f "$bundle" ]; then
        unpacked="$(mktemp -d)"
        tar -C "$unpacked" -xJf "$bundle" || exit 1
        bundle="$unpacked/gpu-bundle"
    fi
    bin="$bundle/bin"
    echo "gpu_check: prebuilt programs of revision $(cat "$bundle/REVISION" 2>/dev/null || echo '?')"
    export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # The C++ runtime it was built with, only where this machine's is older.
    if ! "$bin/gpu_tests" --gtest_list_tests >/dev/null 2>&1; then
        export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$bundle/lib/compat"
    fi
    gpu_tests="$bin/gpu_tests" apps_tests="$bin/apps_tests" aot_cuda="$bin/aot_gpu_cuda_test" fuzz="$bin/dsl_fuzz"
    gpu_bench="$bin/dsl_gpu_bench" nn_tests="$bin/nn_tests" dsl_onnx="$bin/dsl-onnx"
    onnx_node="$bundle/data/node" models="$bundle/data/models"
else
    DSL_BUILD_DIR="${DSL_GPU_BUILD_DIR:-$DSL_ROOT/build-gpu}"
    "$DSL_ROOT/scripts/setup.sh" || exit 1
    jobs="$(nproc 2>/dev/null || echo 2)"
    cmake -S "$DSL_ROOT" -B "$DSL_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$DSL_BUILD_TYPE" \
        -DDSL_BUILD_TESTS=ON -DDSL_BUILD_TUTORIALS=OFF -DDSL_BUILD_APPS=ON \
        -DDSL_BUILD_BENCHMARKS=ON || exit 1
    cmake --build "$DSL_BUILD_DIR" --parallel "$jobs" --target gpu_tests apps_tests fake_cuda \
        aot_gpu_test aot_gpu_cuda_test dsl_fuzz dsl_gpu_bench nn_tests dsl-onnx \
        nn_aot_model_opencl_c_test || exit 1
    # The compiled model on CUDA (test/nn_aot), where the toolkit's libdevice let it be built.
    if grep -q "nn_aot_model_cuda_c_test" "$DSL_BUILD_DIR/build.ninja"; then
        cmake --build "$DSL_BUILD_DIR" --parallel "$jobs" --target nn_aot_model_cuda_c_test || exit 1
    fi
    step "the tests labelled gpu"
    (cd "$DSL_BUILD_DIR" && ctest --output-on-failure --parallel "$jobs" -L gpu "$@") || status=1
    gpu_tests="$DSL_BUILD_DIR/test/gpu_tests" apps_tests="$DSL_BUILD_DIR/test/apps_tests"
    aot_cuda="$DSL_BUILD_DIR/test/aot/aot_gpu_cuda_test"
    fuzz="$DSL_BUILD_DIR/test/fuzz/dsl_fuzz" gpu_bench="$DSL_BUILD_DIR/bench/dsl_gpu_bench"
    nn_tests="$DSL_BUILD_DIR/test/nn_tests" dsl_onnx="$DSL_BUILD_DIR/src/nn/dsl-onnx"
    onnx_node=/usr/share/libonnx-testdata/data/node models="$DSL_BUILD_DIR/models/ocr"
fi

# cuBLAS for the benchmark's peer: the toolkit's libraries, or those of a Python CUDA package.
if [ -z "${DSL_LIBCUBLAS:-}" ]; then
    for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
        $(find / -xdev -type d -path '*nvidia/cu*/lib' 2>/dev/null | head -20); do
        blas="$(ls "$dir"/libcublas.so.[0-9]* 2>/dev/null | head -1)"
        [ -n "$blas" ] || continue
        export DSL_LIBCUBLAS="$blas" LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir"
        rt="$(ls "$dir"/libcudart.so.[0-9]* 2>/dev/null | head -1)"
        [ -n "$rt" ] || rt="$(find / -xdev -name 'libcudart.so.[0-9]*' 2>/dev/null | head -1)"
        [ -n "$rt" ] && export DSL_LIBCUDART="$rt" LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$rt")"
        break
    done
fi

step "every GPU schedule test on CUDA, against the CPU"
check "$gpu_tests" --gtest_filter='*/CUDA:GPUErrors.*' --gtest_brief=1
step "the apps' GPU schedules on CUDA, against their C++ references"
check "$apps_tests" --gtest_filter='*AppsGPU*/CUDA' --gtest_brief=1
step "the AOT CUDA library, called from C"
"$aot_cuda"
case $? in 0) ;; 77) echo "gpu_check: the AOT CUDA test skipped (no CUDA device)" ;; *) status=1 ;; esac
if [ -e /etc/OpenCL/vendors ] && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    step "every GPU schedule test on OpenCL ($(cat /etc/OpenCL/vendors/*.icd | tr '\n' ' '))"
    check "$gpu_tests" --gtest_filter='*/OpenCL' --gtest_brief=1
    check "$apps_tests" --gtest_filter='*AppsGPU*/OpenCL' --gtest_brief=1
else
    echo "gpu_check: no OpenCL driver registered in /etc/OpenCL/vendors; the OpenCL tests skip here"
fi
step "GPU schedules drawn by the fuzzer, on CUDA, for ${DSL_GPU_CHECK_FUZZ_SECONDS:-60} s"
DSL_FUZZ_GPU_TARGET=host-cuda "$fuzz" --gpu --seed "${DSL_GPU_CHECK_FUZZ_SEED:-7000}" \
    --seconds "${DSL_GPU_CHECK_FUZZ_SECONDS:-60}"
case $? in 0 | 77) ;; *) echo "gpu_check: FAILED: the fuzzer on CUDA" && status=1 ;; esac
step "throughput (dsl_gpu_bench) on ${DSL_BENCH_GPU_TARGET:-host-cuda}"
"$gpu_bench" --benchmark_counters_tabular=true || true

step "models on CUDA: small networks against the CPU"
check "$nn_tests" --gtest_filter='APIs/GpuModel.*/CUDA' --gtest_brief=1
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
    if [ -d "$onnx_node" ]; then
        step "ONNX node tests on CUDA (test/onnx/gpu_node_tests.txt)"
        dirs=()
        while read -r t; do
            [[ -z "$t" || "$t" == \#* ]] || dirs+=("$onnx_node/test_$t")
        done <"$DSL_ROOT/test/onnx/gpu_node_tests.txt"
        check "$dsl_onnx" test --target host-cuda "${dirs[@]}"
    fi
    if [ -f "$models/ch_PP-OCRv4_rec_infer.onnx" ]; then
        step "PP-OCRv4 on CUDA and on the CPU (medians of 20 runs; the first load compiles)"
        for m in "det x=1x3x640x640" "det x=1x3x960x960" "rec x=1x3x48x320" "rec x=8x3x48x320"; do
            set -- $m
            for target in host-cuda host; do
                echo "--- $1 $2 on $target"
                "$dsl_onnx" bench "$models/ch_PP-OCRv4_$1_infer.onnx" --shape "$2" --runs 20 \
                    --target "$target" | grep -E "load|median" || status=1
            done
        done
    fi
else
    echo "gpu_check: no NVIDIA GPU answers nvidia-smi; the models' CUDA runs are left out"
fi
exit "$status"
