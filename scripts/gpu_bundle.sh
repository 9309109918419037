#!/usr/bin/env bash
# Packs the GPU checks for a machine that has an NVIDIA GPU but cannot build this project (no
# LLVM 19, no package registry): builds the GPU, app and NN test programs, the AOT CUDA test, the
# fuzzer, dsl_gpu_bench and dsl-onnx here, and writes them with every shared library they need
# that is not the C library, and the models' test data, into one archive. On the GPU machine,
# `scripts/gpu_check.sh --prebuilt ARCHIVE` runs them. Usage: scripts/gpu_bundle.sh [ARCHIVE] (default build/gpu-bundle.tar.xz).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
archive="${1:-$DSL_BUILD_DIR/gpu-bundle.tar.xz}"
mkdir -p "$(dirname "$archive")"
archive="$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")"

cmake -S "$DSL_ROOT" -B "$DSL_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$DSL_BUILD_TYPE" \
    -DDSL_BUILD_TESTS=ON -DDSL_BUILD_APPS=ON -DDSL_BUILD_BENCHMARKS=ON >/dev/null
jobs="$(nproc 2>/dev/null || echo 2)"
cmake --build "$DSL_BUILD_DIR" --parallel "$jobs" \
    --target gpu_tests apps_tests aot_gpu_cuda_test dsl_fuzz dsl_gpu_bench nn_tests dsl-onnx

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/gpu-bundle/bin" "$stage/gpu-bundle/lib/compat"
binaries=("$DSL_BUILD_DIR/test/gpu_tests" "$DSL_BUILD_DIR/test/apps_tests"
    "$DSL_BUILD_DIR/test/aot/aot_gpu_cuda_test"
    "$DSL_BUILD_DIR/test/fuzz/dsl_fuzz" "$DSL_BUILD_DIR/bench/dsl_gpu_bench"
    "$DSL_BUILD_DIR/test/nn_tests" "$DSL_BUILD_DIR/src/nn/dsl-onnx")
cp "${binaries[@]}" "$stage/gpu-bundle/bin/"
strip --strip-unneeded "$stage"/gpu-bundle/bin/* 2>/dev/null || true
# The libraries each program loads: the C library's own stay behind (the GPU machine has its
# own, as new or newer); the C++ runtime goes to lib/compat, used there only if its own is
# older. The OpenCL loader comes too (the programs dlopen it), for a GPU with an OpenCL driver.
libraries="$(for b in "${binaries[@]}"; do ldd "$b"; done | awk '/=> \// { print $3 }' | sort -u)"
for lib in $libraries; do
    case "$(basename "$lib")" in
    libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | ld-linux*) ;;
    libstdc++.so.* | libgcc_s.so.*) cp -L "$lib" "$stage/gpu-bundle/lib/compat/" ;;
    *) cp -L "$lib" "$stage/gpu-bundle/lib/" ;;
    esac
done
for lib in /usr/lib/x86_64-linux-gnu/libOpenCL.so.1; do
    [ -e "$lib" ] && cp -L "$lib" "$stage/gpu-bundle/lib/"
done
# The data of the models' checks: the ONNX node tests of test/onnx/gpu_node_tests.txt and the
# PP-OCRv4 networks (where scripts/setup.sh fetched them).
mkdir -p "$stage/gpu-bundle/data/node" "$stage/gpu-bundle/data/models"
while read -r t; do
    [[ -z "$t" || "$t" == \#* ]] && continue
    src="/usr/share/libonnx-testdata/data/node/test_$t"
    [ -d "$src" ] && cp -r "$src" "$stage/gpu-bundle/data/node/"
done <"$DSL_ROOT/test/onnx/gpu_node_tests.txt"
cp "$DSL_BUILD_DIR"/models/ocr/*.onnx "$stage/gpu-bundle/data/models/" 2>/dev/null || true
git -C "$DSL_ROOT" rev-parse --short HEAD >"$stage/gpu-bundle/REVISION" 2>/dev/null || true
tar -C "$stage" -cf - gpu-bundle | xz -T0 -6 >"$archive"
echo "gpu_bundle: $archive ($(du -h "$archive" | cut -f1)); on the GPU machine:" \
    "scripts/gpu_check.sh --prebuilt $(basename "$archive")"
