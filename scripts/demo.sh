#!/usr/bin/env bash
# Installs what is missing, builds, and runs the demo. Until the image apps exist the demo is
# the expressions tutorial: it shows the IR that dsl builds from C++ expressions.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$DSL_ROOT/scripts/setup.sh"
dsl_configure_and_build -DDSL_BUILD_TUTORIALS=ON
out="$DSL_BUILD_DIR/demo_output"
mkdir -p "$out"
cd "$out"
for lesson in "$DSL_BUILD_DIR"/tutorials/lesson_*; do
    [[ -x "$lesson" ]] || continue
    echo "=== $(basename "$lesson") ==="
    "$lesson"
done
echo "demo: outputs are in $out"
