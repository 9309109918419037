#!/usr/bin/env bash
# Fetches scikit-image's sample photograph page.png (a photographed book page, seven lines of
# text) for the OCR app's tests (apps/ocr) into $DSL_BUILD_DIR/models/ocr/ (default
# build/models/ocr/). It is taken from the Debian package python3-skimage, downloaded with
# `apt-get download` (apt checks it against the signed archive) and unpacked into a temporary
# directory: nothing is installed. The image is checked against a pinned SHA-256. Nothing is
# fetched when the file is there. Called by setup.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${DSL_BUILD_DIR:-$root/build}/models/ocr"
package="python3-skimage"
member="./usr/lib/python3/dist-packages/skimage/data/page.png"
sha256="341a6f0a61557662b02734a9b6e56ec33a915b2c41886b97509dedf2a43b47a3"

if [[ -s "$dest/page.png" ]] && echo "$sha256  $dest/page.png" | sha256sum -c --status; then
    echo "setup: the OCR test image page.png is in $dest."
    exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# As root, apt downloads as the user _apt, who must be able to write the directory.
if [[ $(id -u) -eq 0 ]] && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
echo "setup: downloading the Debian package $package (for skimage/data/page.png)..."
if ! (cd "$tmp" && apt-get download -qq "$package" >/dev/null); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "setup: apt-get download $package failed; try 'sudo apt-get update' first" >&2
        exit 1
    fi
    echo "setup: apt-get download $package failed; updating the package lists and retrying..."
    apt-get update -qq
    (cd "$tmp" && apt-get download -qq "$package" >/dev/null)
fi
deb="$(ls "$tmp"/"$package"_*.deb)"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "$member"
if ! echo "$sha256  $tmp/$member" | sha256sum -c --status; then
    echo "setup: page.png from $(basename "$deb") is not the pinned one (sha256 $sha256)" >&2
    exit 1
fi
mkdir -p "$dest"
cp "$tmp/$member" "$dest/page.png"
echo "setup: the OCR test image page.png (from $(basename "$deb")) is in $dest."
