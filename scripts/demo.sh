#!/usr/bin/env bash
# Installs what is missing, builds, and runs the demo: every tutorial (their output goes to
# tutorials.log), then every image app of apps/ on its photograph from apps/images/. The apps
# write their results as PNGs into $DSL_BUILD_DIR/demo_output/ and time the AOT libraries of
# their default (naive) and hand-written (scheduled) schedules, and realize() of the hand-written
# one through the JIT (which lowers the pipeline again on every call); the demo ends with a table.
# DEMO_RUNS sets the number of timed runs of each version (best of them; default 10).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$DSL_ROOT/scripts/setup.sh"
dsl_configure_and_build -DDSL_BUILD_TUTORIALS=ON -DDSL_BUILD_APPS=ON
out="$DSL_BUILD_DIR/demo_output"
mkdir -p "$out"
cd "$out"

: >tutorials.log
for lesson in "$DSL_BUILD_DIR"/tutorials/lesson_*; do
    [[ -x "$lesson" ]] || continue
    printf 'tutorial %-32s ' "$(basename "$lesson")"
    if "$lesson" >>tutorials.log 2>&1; then echo ok; else echo "FAILED (see $out/tutorials.log)"; exit 1; fi
done

runs="${DEMO_RUNS:-10}"
images="$DSL_ROOT/apps/images"
results=()
# app, input image
for entry in "blur camera.png" "unsharp coffee.jpg" "histogram_equalize camera.png" \
             "harris coffee.jpg" "bilateral_grid camera.png" "camera_pipe coffee.jpg" \
             "local_laplacian coffee.jpg"; do
    read -r app image <<<"$entry"
    echo "app $app on $image (compiling and timing, a few seconds)..."
    log="$out/$app.log"
    if ! "$DSL_BUILD_DIR/apps/$app/${app}_run" "$images/$image" "$out/$app.png" \
            --benchmark "$runs" >"$log" 2>&1; then
        cat "$log"
        echo "demo: $app failed"
        exit 1
    fi
    results+=("$(grep '^result ' "$log")")
done

echo
echo "Apps (best of $runs runs each, $(nproc) threads; outputs in $out):"
printf '%-20s %-10s %12s %16s %10s %10s\n' app image "naive (ms)" "scheduled (ms)" speed-up "JIT (ms)"
for line in "${results[@]}"; do
    read -r _ app size naive scheduled jit <<<"$line"
    speedup="$(awk -v n="$naive" -v s="$scheduled" 'BEGIN { printf "%.1fx", n / s }')"
    printf '%-20s %-10s %12s %16s %10s %10s\n' "$app" "$size" "$naive" "$scheduled" "$speedup" "$jit"
done
echo
echo "app matmul on random 512x512 matrices (compiling and timing, a few seconds)..."
if ! "$DSL_BUILD_DIR/apps/matmul/matmul_run" 512 512 512 --benchmark "$runs" >"$out/matmul.log" 2>&1; then
    cat "$out/matmul.log"
    echo "demo: matmul failed"
    exit 1
fi
cat "$out/matmul.log"
echo
echo "app conv_layer: 3x3, 1x1 and depthwise layers on 4 random 64x64 images of 128 channels..."
if ! "$DSL_BUILD_DIR/apps/conv_layer/conv_layer_run" --benchmark "$runs" >"$out/conv_layer.log" 2>&1; then
    cat "$out/conv_layer.log"
    echo "demo: conv_layer failed"
    exit 1
fi
cat "$out/conv_layer.log"

# The OCR app (apps/ocr): PP-OCRv4 through the NN layer on scikit-image's photograph of a book
# page. The first run compiles the two networks (a minute or two on two cores; later runs load
# them from the disk cache).
models="$DSL_BUILD_DIR/models/ocr"
if [[ -f "$models/page.png" && -f "$models/ch_PP-OCRv4_det_infer.onnx" ]]; then
    echo
    echo "app ocr on page.png (box corners, detector score, recogniser score, text):"
    if ! "$DSL_BUILD_DIR/apps/ocr/ocr_run" "$models/page.png" "$out/ocr_page.png"; then
        echo "demo: ocr failed"
        exit 1
    fi
    echo "demo: the boxes it found are drawn in $out/ocr_page.png"
fi
echo "demo: outputs are in $out"
