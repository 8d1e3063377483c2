#!/usr/bin/env bash
# Builds the renderer's own WebAssembly module (src/render_module.rs: Markdown,
# math, highlighting, ammonia, the Markdown export) into SITE_DIR/pkg as
# pensive_render.js + pensive_render_bg.wasm, beside the Web Worker that runs
# it (src/render_worker.js -> render_worker.js). The page starts the worker
# right after hydration (src/app/lazy_renderer/mod.rs), so none of it is in what
# the browser downloads before the page is interactive, and none of it runs
# on the page's main thread.
# cargo-leptos runs it after every server build (scripts/cargo-leptos-server.sh),
# so `cargo leptos build` and `watch` include it; it owns the rest of SITE_DIR/pkg.
# release: the size-optimised profile, wasm-opt -Oz, and a brotli and a gzip
# copy beside each file, as `--precompress` writes for the main module.
# A third argument runs half of it: `compile` (cargo only) or `package` (the
# rest, from what `compile` built), so scripts/build-release.sh can compile
# it beside the other builds before wasm-bindgen is installed.
set -euo pipefail
usage="usage: scripts/build-renderer.sh SITE_DIR debug|release [compile|package]"
site=${1:?$usage}
mode=${2:?$usage}
part=${3:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
target="${CARGO_TARGET_DIR:-$root/target}"
case $mode in
  debug) profile=dev; out=debug ;;
  release) profile=wasm-release; out=wasm-release ;;
  *) echo "mode must be debug or release, not $mode" >&2; exit 2 ;;
esac
case $part in
  all | compile | package) ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
cd "$root"
if [ "$part" != package ]; then
  cargo build --lib --target wasm32-unknown-unknown --no-default-features \
    --features render-module --profile "$profile"
fi
[ "$part" != compile ] || exit 0
mkdir -p "$site/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$site/pkg" --out-name pensive_render \
  "$target/wasm32-unknown-unknown/$out/pensive.wasm"
cp src/render_worker.js "$site/pkg/render_worker.js"
if [ "$mode" = release ]; then
  wasm="$site/pkg/pensive_render_bg.wasm"
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int "$wasm" -o "$wasm"
  for file in "$wasm" "$site/pkg/pensive_render.js" "$site/pkg/render_worker.js"; do
    gzip -9 -n -c "$file" >"$file.gz"
    node -e '
      const fs = require("fs"), zlib = require("zlib");
      const [file] = process.argv.slice(1);
      fs.writeFileSync(file + ".br", zlib.brotliCompressSync(fs.readFileSync(file), {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 },
      }));' "$file"
  done
fi
