# Shared by test.sh and demo.sh: configure and build into $DSL_BUILD_DIR (default build/).
DSL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DSL_BUILD_DIR="${DSL_BUILD_DIR:-$DSL_ROOT/build}"
DSL_BUILD_TYPE="${DSL_BUILD_TYPE:-Release}"

dsl_configure_and_build() {
    local jobs
    jobs="$(nproc 2>/dev/null || echo 2)"
    cmake -S "$DSL_ROOT" -B "$DSL_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$DSL_BUILD_TYPE" "$@"
    cmake --build "$DSL_BUILD_DIR" --parallel "$jobs"
}
