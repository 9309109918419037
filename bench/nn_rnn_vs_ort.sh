#!/usr/bin/env bash
# The NN layer's recurrent layers against ONNX Runtime, side by side in one run:
#   bench/nn_rnn_vs_ort.sh [ROUNDS] [RUNS]
# Writes one-layer models (hidden 256, input 128: LSTM, GRU and RNN forward, and a
# bidirectional LSTM) with build/bench/dsl_rnn_model into build/rnn, then times each on 100
# steps of a batch of 1 and of 8 with bench/nn_vs_ort.sh (ROUNDS rounds of RUNS runs each side;
# the table gives dsl's time over ONNX Runtime's).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${DSL_BUILD_DIR:-$root/build}"
writer="$build/bench/dsl_rnn_model"
if [[ ! -x "$writer" ]]; then
    echo "nn_rnn_vs_ort: build dsl_rnn_model first (cmake --build $build --target dsl_rnn_model)" >&2
    exit 1
fi
mkdir -p "$build/rnn"
"$writer" "$build/rnn/lstm.onnx" lstm 256 128
"$writer" "$build/rnn/gru.onnx" gru 256 128
"$writer" "$build/rnn/rnn.onnx" rnn 256 128
"$writer" "$build/rnn/lstm_bi.onnx" lstm 256 128 bidirectional
entries=()
for m in lstm gru rnn lstm_bi; do
    for batch in 1 8; do
        entries+=("$build/rnn/$m.onnx=x=100x${batch}x128")
    done
done
exec "$root/bench/nn_vs_ort.sh" "${1:-5}" "${2:-20}" "${entries[@]}"
