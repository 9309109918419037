#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer into build-sanitize/ (or
# $DSL_SANITIZE_BUILD_DIR) and runs the unit, correctness, error, runtime, aot and tutorial tests
# under them. Any report fails the run.
# Extra arguments go to ctest (e.g. `scripts/sanitize.sh -L unit`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$DSL_ROOT/scripts/setup.sh"
export DSL_BUILD_DIR="${DSL_SANITIZE_BUILD_DIR:-$DSL_ROOT/build-sanitize}"
DSL_BUILD_TYPE=RelWithDebInfo dsl_configure_and_build -DDSL_SANITIZE=ON -DDSL_BUILD_TESTS=ON \
    -DDSL_BUILD_TUTORIALS=ON -DDSL_BUILD_BENCHMARKS=OFF
# LLVM's shared library is not instrumented; leaks it keeps until exit are not ours.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
cd "$DSL_BUILD_DIR"
if [ "$#" -eq 0 ]; then
    set -- -L 'unit|correctness|error|runtime|aot|tutorials'
fi
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" "$@"
