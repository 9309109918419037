#!/usr/bin/env bash
# The NN layer against ONNX Runtime on PP-OCRv4 (issue 32), side by side in one run:
#   bench/nn_vs_ort.sh [ROUNDS] [RUNS] [MODEL.onnx=NAME=AxBxCxD ...]
# For each model, input shape and thread count, ROUNDS rounds (default 5) alternate
# `dsl-onnx bench` and bench/ort/ort_bench.js (RUNS timed runs each, default 20); each side's
# time is the median of its rounds' medians, and the table gives the ratio dsl / ORT (below 1:
# dsl is faster), then each side's peak resident memory in MiB (the largest over the rounds, the
# whole process: Node.js for ORT, the compiler's libraries for dsl). A first untimed run of
# each model fills dsl's disk cache, so no round counts the compiler's time or memory.
# Models given after RUNS replace the four PP-OCRv4 entries (each a file and its input's shape;
# bench/nn_int8_vs_ort.sh gives the quantized detector). Needs build/models/ocr
# (scripts/setup.sh) and onnxruntime-node in build/peers/ort (DSL_BENCH_PEERS=1
# scripts/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DSL_BUILD_DIR:-$root/build}"
rounds="${1:-5}"
runs="${2:-20}"
models="$build/models/ocr"
tool="$build/src/nn/dsl-onnx"
export DSL_ORT_DIR="${DSL_ORT_DIR:-$build/peers/ort}"
if [[ ! -d "$DSL_ORT_DIR/node_modules/onnxruntime-node" ]]; then
    echo "nn_vs_ort: onnxruntime-node is not in $DSL_ORT_DIR (DSL_BENCH_PEERS=1 scripts/setup.sh)" >&2
    exit 1
fi

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

largest() { sort -g | tail -n 1; }

printf '%-16s %-12s %7s %10s %10s %7s %12s %12s\n' model shape threads "dsl (ms)" "ORT (ms)" ratio \
    "dsl (MiB)" "ORT (MiB)"
entries=("$models/ch_PP-OCRv4_det_infer.onnx=x=1x3x640x640"
    "$models/ch_PP-OCRv4_det_infer.onnx=x=1x3x960x960"
    "$models/ch_PP-OCRv4_rec_infer.onnx=x=1x3x48x320"
    "$models/ch_PP-OCRv4_rec_infer.onnx=x=8x3x48x320")
if (($# > 2)); then entries=("${@:3}"); fi
for entry in "${entries[@]}"; do
    model="${entry%%=*}"
    shape="${entry#*=}"
    which="$(basename "$model" .onnx)"
    which="${which#ch_PP-OCRv4_}"
    which="${which%_infer}"
    "$tool" bench "$model" --shape "$shape" --runs 1 >/dev/null
    for threads in 1 2; do
        ours=()
        theirs=()
        our_memory=()
        their_memory=()
        for ((r = 0; r < rounds; r++)); do
            out="$("$tool" bench "$model" --shape "$shape" --threads "$threads" --runs "$runs")"
            ours+=("$(awk '/^run:/ { print $3 }' <<<"$out")")
            our_memory+=("$(awk '/^peak resident memory:/ { print $4 }' <<<"$out")")
            out="$(node "$root/bench/ort/ort_bench.js" "$model" "$shape" "$threads" "$runs")"
            theirs+=("$(awk '{ print $7 }' <<<"$out")")
            their_memory+=("$(awk '{ print $17 }' <<<"$out")")
        done
        a="$(printf '%s\n' "${ours[@]}" | median)"
        b="$(printf '%s\n' "${theirs[@]}" | median)"
        printf '%-16s %-12s %7s %10.2f %10.2f %7.2f %12.1f %12.1f\n' "$which" "${shape#x=}" \
            "$threads" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')" \
            "$(printf '%s\n' "${our_memory[@]}" | largest)" \
            "$(printf '%s\n' "${their_memory[@]}" | largest)"
    done
done
