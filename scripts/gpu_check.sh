#!/usr/bin/env bash
# The GPU checks, for a machine with an NVIDIA GPU (and anywhere else: CUDA tests then skip).
# Installs what is missing, builds the library, the GPU tests and dsl_bench (no apps or
# tutorials) into build-gpu/, runs the tests labelled "gpu" (every GPU schedule through OpenCL
# and, where the CUDA driver finds a GPU, through CUDA; the PTX through ptxas), then prints the
# throughput table of bench/gpu.cpp (blur GB/s, matmul GFLOP/s) on CUDA. Extra arguments are
# passed to ctest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
DSL_BUILD_DIR="${DSL_GPU_BUILD_DIR:-$DSL_ROOT/build-gpu}"

"$DSL_ROOT/scripts/setup.sh"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader || true
else
    echo "gpu_check: no nvidia-smi here; the CUDA schedule tests will skip."
fi
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S "$DSL_ROOT" -B "$DSL_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$DSL_BUILD_TYPE" \
    -DDSL_BUILD_TESTS=ON -DDSL_BUILD_TUTORIALS=OFF -DDSL_BUILD_APPS=OFF \
    -DDSL_BUILD_BENCHMARKS=ON
targets=(gpu_tests fake_cuda aot_gpu_test aot_gpu_cuda_test dsl_fuzz)
if cmake --build "$DSL_BUILD_DIR" --target help | grep -q dsl_bench; then targets+=(dsl_bench); fi
cmake --build "$DSL_BUILD_DIR" --parallel "$jobs" --target "${targets[@]}"
cd "$DSL_BUILD_DIR"
# The CUDA schedule tests' summary: run, or skipped and why.
./test/gpu_tests --gtest_filter='*/CUDA' 2>&1 | grep -E 'no device for|PASSED|SKIPPED|FAILED' |
    head -5 || true
status=0
ctest --output-on-failure --parallel "$jobs" -L gpu "$@" || status=$?
if [ -x bench/dsl_bench ]; then
    echo "gpu_check: throughput on ${DSL_BENCH_GPU_TARGET:-host-cuda}"
    bench/dsl_bench --benchmark_filter='gpu/' || true
fi
exit "$status"
