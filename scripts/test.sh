#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite through CTest.
# Extra arguments are passed to ctest (e.g. `scripts/test.sh -L unit`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$DSL_ROOT/scripts/setup.sh"
dsl_configure_and_build -DDSL_BUILD_TESTS=ON -DDSL_BUILD_TUTORIALS=ON
cd "$DSL_BUILD_DIR"
ctest --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)" "$@"
