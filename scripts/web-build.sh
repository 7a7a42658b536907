#!/usr/bin/env bash
# Builds the browser version of Spatial Query Lab into a static folder of
# seven files and nothing else: index.html, presenter.html (the lesson's
# presenter view), the .wasm, miniquad's loader
# (gl.js) and the JS plugins of the crates in Cargo.lock. The folder needs no
# server code: copy it to any static host (a course page) or serve it with
# scripts/web-serve.sh. Cargo's own build files stay under target/.
#
#   scripts/web-build.sh [--no-simd128] [--out DIR]
#
# --no-simd128  build without WebAssembly SIMD (for a browser from before
#               2021; the kernel list then has only the scalar kernel)
# --out DIR     where the folder goes (default: target/web-page, or
#               target/web-page-no-simd128 with --no-simd128); a folder
#               that holds other files is refused, so nothing else gets
#               copied to a host
#
# Needs: rustup target add wasm32-unknown-unknown
set -euo pipefail
cd "$(dirname "$0")/.."

simd=1
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --no-simd128) simd=0 ;;
        --out) shift; out="${1:?--out needs a folder}" ;;
        --out=*) out="${1#--out=}" ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "web-build.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done

target=wasm32-unknown-unknown
sysroot="$(rustc --print sysroot)"
if [ ! -d "$sysroot/lib/rustlib/$target/lib" ]; then
    echo "web-build.sh: the Rust target $target is not installed; run: rustup target add $target" >&2
    exit 1
fi

# Flags for this target only. SIMD128 is chosen at compile time: WebAssembly
# has no run-time feature detection. The two variants build in their own
# target folders so switching does not rebuild the other.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
if [ "$simd" = 1 ]; then
    export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128"
    build_dir="${CARGO_TARGET_DIR:-target}"
    out="${out:-target/web-page}"
else
    export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS=""
    build_dir="${CARGO_TARGET_DIR:-target}/no-simd128"
    out="${out:-target/web-page-no-simd128}"
fi
cargo build --profile web --target "$target" --bin spatial-query-lab --target-dir "$build_dir"

# The JS files ship inside the crates: take them from the exact versions in
# Cargo.lock, so gl.js matches the miniquad the module was built with.
locked_version() {
    awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
crate_file() {
    local ver found
    ver="$(locked_version "$1")"
    [ -n "$ver" ] || { echo "web-build.sh: $1 is not in Cargo.lock" >&2; exit 1; }
    found="$(ls -d "$registry"/*/"$1-$ver/$2" 2>/dev/null | head -n 1)"
    [ -n "$found" ] || { echo "web-build.sh: $2 of $1 $ver not found under $registry (run cargo fetch)" >&2; exit 1; }
    echo "$found"
}

# The folder holds the page and nothing else (it is what gets copied to a
# host): never cargo's target folder itself.
case "$(cd "$(dirname "$out")" 2>/dev/null && pwd)/$(basename "$out")" in
    "$(pwd)/${build_dir}"|"$(pwd)/${build_dir}/web"|"$(pwd)/${build_dir}/release"|"$(pwd)/${build_dir}/debug")
        echo "web-build.sh: --out $out is one of cargo's own folders; choose another (default: target/web-page)" >&2; exit 2 ;;
esac
mkdir -p "$out"
page_files="index.html presenter.html spatial-query-lab.wasm gl.js sapp_jsutils.js quad-url.js sql.js"
for f in "$out"/* "$out"/.[!.]*; do
    [ -e "$f" ] || continue
    case " $page_files " in
        *" $(basename "$f") "*) ;;
        *) echo "web-build.sh: $f is not part of the page; remove it (or choose another --out)" >&2; exit 2 ;;
    esac
done
wasm="$build_dir/$target/web/spatial-query-lab.wasm"
cp "$wasm" "$out/spatial-query-lab.wasm"
cp "$(crate_file miniquad js/gl.js)" "$out/gl.js"
cp "$(crate_file sapp-jsutils js/sapp_jsutils.js)" "$out/sapp_jsutils.js"
cp "$(crate_file quad-url js/quad-url.js)" "$out/quad-url.js"
cp web/sql.js "$out/sql.js"
cp web/presenter.html "$out/presenter.html"
bytes="$(wc -c < "$out/spatial-query-lab.wasm" | tr -d ' ')"
sed "s/__WASM_BYTES__/$bytes/" web/index.html > "$out/index.html"

gz="$(gzip -9 -c "$out/spatial-query-lab.wasm" | wc -c | tr -d ' ')"
simd_text="with SIMD128"
[ "$simd" = 1 ] || simd_text="without SIMD128"
total="$(cat "$out"/* | wc -c | tr -d ' ')"
echo "web-build.sh: built $out ($simd_text): 7 files, $((total / 1024)) KiB; spatial-query-lab.wasm $((bytes / 1024)) KiB, $((gz / 1024)) KiB gzipped"
echo "web-build.sh: serve it with: scripts/web-serve.sh $out"
