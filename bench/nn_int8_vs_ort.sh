#!/usr/bin/env bash
# The int8 PP-OCRv4 detector (issue 36) against the float one and against ONNX Runtime running
# the same QDQ file, side by side in one run:
#   bench/nn_int8_vs_ort.sh [ROUNDS] [RUNS] [METHOD]
# 1. Calibration samples: the detector's input for each of the OCR app's rendered test images
#    (`ocr_run --dump`), kept in build/models/ocr-int8/calibration.
# 2. `dsl-onnx quantize` with METHOD (minmax, percentile or entropy; default percentile) writes
#    build/models/ocr-int8/ch_PP-OCRv4_det_int8.onnx, and ch_PP-OCRv4_det_infer.onnx links to
#    it beside the float recogniser, so that `ocr_run --models build/models/ocr-int8` reads
#    with the int8 detector.
# 3. bench/nn_vs_ort.sh times the float and the int8 detector at 1x3x640x640 in both runtimes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DSL_BUILD_DIR:-$root/build}"
rounds="${1:-3}"
runs="${2:-15}"
method="${3:-percentile}"
models="$build/models/ocr"
out="$build/models/ocr-int8"
calibration="$out/calibration"
mkdir -p "$calibration"
for image in "$build"/apps/ocr/testdata/*.png; do
    name="$(basename "$image" .png)"
    [[ -f "$calibration/$name.npy" ]] && continue
    dump="$(mktemp -d)"
    "$build/apps/ocr/ocr_run" "$image" "$dump/boxes.png" --dump "$dump" >/dev/null
    cp "$dump/detector_input.npy" "$calibration/$name.npy"
    rm -rf "$dump"
done
"$build/src/nn/dsl-onnx" quantize "$models/ch_PP-OCRv4_det_infer.onnx" --calibrate "$calibration" \
    --method "$method" -o "$out/ch_PP-OCRv4_det_int8.onnx"
ln -sf ch_PP-OCRv4_det_int8.onnx "$out/ch_PP-OCRv4_det_infer.onnx"
ln -sf "$models/ch_PP-OCRv4_rec_infer.onnx" "$models/ppocr_keys_v1.txt" "$out/"
"$root/bench/nn_vs_ort.sh" "$rounds" "$runs" \
    "$models/ch_PP-OCRv4_det_infer.onnx=x=1x3x640x640" \
    "$out/ch_PP-OCRv4_det_int8.onnx=x=1x3x640x640"
