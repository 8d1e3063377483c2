#!/usr/bin/env bash
# The release site `make run` serves and `make bench` measures, into SITE_DIR,
# and the server binary beside the hash file that names its files. Plain cargo,
# wasm-bindgen and wasm-opt, what `cargo leptos build --release --precompress`
# runs inside (cargo-leptos 0.3.6: compile/{server,front,style,hash}.rs), so
# `make run` needs no cargo-leptos; `make dev` and `make test` still use it.
# Steps, each printed with the time it took:
#   1. four compiles side by side (output in target/build-logs/):
#    - server: cargo build --release --features ssr, RUSTFLAGS and LEPTOS_*
#      as cargo-leptos sets them;
#    - browser bundle: the pinned nightly with its own standard library
#      (-Zbuild-std), aborting on panic without unwinding or formatting
#      machinery (no location details, no Debug output): 300.5 -> 272.6 KB
#      brotli for the main module a first visit downloads before the page is
#      interactive (docs/benchmarks-browser.md); a panic in the browser then
#      stops the app without a message (debug builds keep them);
#    - the renderer's own module (scripts/build-renderer.sh);
#    - wasm-bindgen's and wasm-split's CLIs, the first time (make
#      setup-wasm-bindgen setup-wasm-split);
#   2. wasm-split-cli on the browser bundle (its main module, two chunks and
#      what they share, src/app/later.rs), wasm-bindgen --target web on the
#      main module and wasm-opt for every module, the JS glue
#      minified (esbuild, where cargo-leptos uses swc); then the site: the
#      stylesheet through lightningcss (browserquery "defaults", minified, as
#      cargo-leptos does; the npm CLI is the same Rust crate), the public/
#      assets, content-hashed names (`pensive.<md5>.js|wasm|css`, the hash
#      file `hash.txt` next to the server binary, cargo-leptos' format), and a
#      brotli and a gzip copy beside every file.
#   (3. `make run` serving.)
# The site is put together in a scratch directory and replaces SITE_DIR whole
# at the end. The npm tools come from scripts/site-tools (`make setup-site`).
set -euo pipefail
site=${1:?usage: scripts/build-release.sh SITE_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
nightly=$(sed -n 's/^RELEASE_NIGHTLY := //p' Makefile)
name=pensive # Cargo.toml [package.metadata.leptos] output-name
tools="$root/scripts/site-tools/node_modules/.bin"

# ---- Every flag the release build passes, in one place ----
# Both builds: type-erased views (Cargo.toml `always-erase-components`).
server_rustflags="--cfg erase_components"
# The browser bundle (cargo-leptos appends the erase flag to the target's flags).
browser_rustflags="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none --cfg erase_components"
# Split at the `later!` functions (src/app/later.rs): the cfg turns them into
# split points, the linker keeps the relocations wasm-split-cli reads the
# call graph from, and reference types stay off, because wasm-bindgen's
# externref rewrite changes the main module's signatures under the chunks'
# feet (docs/benchmarks-browser.md, "The code split").
browser_rustflags+=" --cfg pensive_split -Clink-args=--emit-relocs -Ctarget-feature=-reference-types"
browser_build_std="std,panic_abort"
# Cargo.toml `wasm-opt-features` (keep the two equal): `-Os --converge` packs
# smaller under brotli than cargo-leptos' default `-Oz` (why: the comment
# there); the renderer's are in scripts/build-renderer.sh.
browser_wasm_opt=(-Os --converge --enable-bulk-memory --enable-nontrapping-float-to-int)
# Cargo.toml `browserquery`.
css_targets="defaults"
# What cargo-leptos sets for the server build; only LEPTOS_OUTPUT_NAME is read
# at compile time (also in .cargo/config.toml), the rest is for parity.
server_env=(LEPTOS_OUTPUT_NAME=$name LEPTOS_SITE_ROOT=$site LEPTOS_SITE_PKG_DIR=pkg
  LEPTOS_SITE_ADDR=127.0.0.1:3000 LEPTOS_RELOAD_PORT=3001 LEPTOS_LIB_DIR=. LEPTOS_BIN_DIR=.
  LEPTOS_JS_MINIFY=true LEPTOS_HASH_FILES=true LEPTOS_HASH_FILE_NAME=hash.txt)

# ---- Progress: numbered steps, each with rough times (2 idle cores) ----
# Cold = nothing built in this target directory yet; warm = after a change.
# Measured in docs/build-times.md ("make run on a fresh machine").
start=$SECONDS
server_bin="$target/release/$name"
browser_wasm="$target/front/wasm32-unknown-unknown/wasm-release/$name.wasm"
renderer_wasm="$target/wasm32-unknown-unknown/wasm-release/$name.wasm"
compile_minutes=12
[ -e "$server_bin" ] && [ -e "$browser_wasm" ] && [ -e "$renderer_wasm" ] && compile_minutes=2
steps=3 # the third is `make run` serving
minutes() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
logs="$target/build-logs"
stage="$site.building"
rm -rf "$stage" "$logs"
mkdir -p "$stage/pkg" "$logs"

# ---- 1. Four compiles side by side ----
# One at a time, each leaves a core idle for long stretches (a crate or a link
# that builds alone, the wasm builds' one-unit LTO), so they run together: the
# server, the longest chain, at normal priority, the rest niced behind it.
compile_server() {
  env "${server_env[@]}" RUSTFLAGS="$server_rustflags" \
    cargo build --package=$name --bin=$name --no-default-features --features=ssr --release
}
compile_browser() {
  RUSTUP_TOOLCHAIN="$nightly" CARGO_UNSTABLE_BUILD_STD="$browser_build_std" RUSTFLAGS="$browser_rustflags" \
    nice -n 5 cargo build --package=$name --lib --target=wasm32-unknown-unknown --target-dir="$target/front" \
    --no-default-features --features=hydrate --profile=wasm-release
}
compile_renderer() { nice -n 5 scripts/build-renderer.sh "$stage" release compile; }
compile_bindgen() { nice -n 5 make --no-print-directory setup-wasm-bindgen setup-wasm-split; }
# How many crates each compiles from nothing (cargo prints one "Compiling" a
# crate), for the progress line; the std crates -Zbuild-std adds are ≈ 20.
crates() { # features [target]
  cargo tree --prefix none -e normal,build --no-default-features --features "$1" ${2:+--target "$2"} 2>/dev/null |
    sed 's/ (\*)$//' | sort -u | wc -l
}
jobs=(server browser renderer bindgen)
declare -A pid total
total[server]=$(crates ssr)
total[browser]=$(($(crates hydrate wasm32-unknown-unknown) + 20))
total[renderer]=$(crates render-module wasm32-unknown-unknown)
total[bindgen]=209 # wasm-bindgen-cli 0.2.130's and wasm-split-cli 0.2.4's crates, counted on 2026-12-05
echo "[1/$steps] compiling the server, the browser bundle ($nightly, -Zbuild-std), the renderer module" \
  "and, once, the wasm-bindgen and wasm-split CLIs, side by side (about $compile_minutes min on 2 idle cores; output in $logs)"
# Job control puts each compile in a process group of its own, so stopping one
# (a build failed, or Ctrl-C) stops its cargo and rustc processes too.
set -m
declare -A job_of # pid -> job
for job in "${jobs[@]}"; do
  "compile_$job" >"$logs/$job.log" 2>&1 &
  pid[$job]=$!
  job_of[$!]=$job
done
set +m
progress() { # one line: each job's crates compiled, or done
  local line="" job count
  for job in "${jobs[@]}"; do
    if kill -0 "${pid[$job]}" 2>/dev/null; then
      count=$(grep -c '^ *Compiling ' "$logs/$job.log" || true)
      line+=" $job $count/≈${total[$job]},"
    else
      line+=" $job done,"
    fi
  done
  local elapsed=$((SECONDS - start)) left=$((compile_minutes * 60 - SECONDS + start))
  ((left > 60)) || left=60
  echo "      $(minutes $elapsed):${line%,}; about $((left / 60)) min left"
}
# A line every 30 s, from a reporter of its own while this shell waits.
(while sleep 30; do progress; done) &
reporter=$!
stop_jobs() {
  kill "$reporter" 2>/dev/null || true
  for job in "${jobs[@]}"; do kill -- "-${pid[$job]}" 2>/dev/null || true; done
}
trap stop_jobs EXIT
trap 'exit 130' INT TERM
# Each compile as it ends (bash's `wait -n`); the first to fail stops the rest.
while ((${#job_of[@]})); do
  if ! wait -n -p ended "${!job_of[@]}"; then
    failed=${job_of[$ended]}
    echo "[1/$steps] the $failed build failed; the end of $logs/$failed.log:" >&2
    tail -n 40 "$logs/$failed.log" >&2
    exit 1
  fi
  unset "job_of[$ended]"
done
kill "$reporter" 2>/dev/null || true
trap - EXIT
echo "[1/$steps] compiled in $(minutes $((SECONDS - start)))"

# ---- 2. Bind, optimise and put the site together ----
step_start=$SECONDS
echo "[2/$steps] wasm-split, wasm-bindgen, wasm-opt, CSS, hashed names, brotli and gzip copies (about 1 min) …"
split="$stage/split" # wasm-split-cli's output, gone once the site is put together
# wasm-opt on a split module: its name section has a subsection (id 3) binaryen
# does not know and warns about once per module; any other message shows.
optimize() { # in out
  wasm-opt "${browser_wasm_opt[@]}" "$1" -o "$2" 2>"$2.log" || { cat "$2.log" >&2; return 1; }
  grep -v 'unknown name subsection' "$2.log" >&2 || true
  rm -f "$2.log"
}
bundle_browser() {
  # The main module, a module per chunk (and one for what chunks share), and
  # the loader `__wasm_split.js`, which fetches a chunk on first use.
  mkdir -p "$split/chunks"
  wasm-split-cli "$browser_wasm" "$split" >/dev/null
  # The lld exports are the functions the chunks call into.
  wasm-bindgen --target web --no-typescript --keep-lld-exports --no-demangle \
    --out-name $name --out-dir "$stage/pkg" "$split/main.wasm"
  # cargo-leptos renames <name>_bg.wasm to <name>.wasm, the name Leptos' HydrationScripts loads.
  mv "$stage/pkg/${name}_bg.wasm" "$stage/pkg/$name.wasm"
  optimize "$stage/pkg/$name.wasm" "$stage/pkg/$name.wasm"
  local chunk stem
  for chunk in "$split"/*.wasm; do
    [ "$chunk" = "$split/main.wasm" ] || optimize "$chunk" "$split/chunks/$(basename "$chunk")"
  done
  # One id for the split's files, from what they are made of: the chunks and
  # the loader are named by it (the glue imports the loader, the loader the
  # glue, so neither can be named by its own content), and it changes with
  # any of them.
  split_id=$(cat "$stage/pkg/$name.wasm" "$stage/pkg/$name.js" "$split/__wasm_split.js" "$split/chunks/"*.wasm |
    node -e 'process.stdout.write(require("crypto").createHash("md5").update(require("fs").readFileSync(0)).digest("base64url"))')
  for chunk in "$split/chunks/"*.wasm; do
    stem=$(basename "$chunk" .wasm)
    mv "$chunk" "$stage/pkg/$stem.$split_id.wasm"
    sed -i "s|\"./$stem.wasm\"|\"./$stem.$split_id.wasm\"|" "$split/__wasm_split.js"
  done
  sed -i "s|from \"./__wasm_split.js\"|from \"./__wasm_split.$split_id.js\"|" "$stage/pkg/$name.js"
  echo "$split_id" >"$split/id"
  # (wasm-bindgen lists the loader twice among the imports, under one key.)
  "$tools/esbuild" --minify --log-level=warning --log-override:duplicate-object-key=silent \
    "$stage/pkg/$name.js" --outfile="$stage/pkg/$name.min.js"
  mv "$stage/pkg/$name.min.js" "$stage/pkg/$name.js"
}
# The two modules' wasm-opt runs take a core each.
bundle_browser &
browser_bundled=$!
scripts/build-renderer.sh "$stage" release package
wait "$browser_bundled"
"$tools/lightningcss" --minify --targets "$css_targets" style/main.css -o "$stage/pkg/$name.css"
cp -R public/. "$stage/"
# cargo-leptos' names: <stem>.<base64url(md5), unpadded>.<ext>; hash.txt lists them.
hashes=""
for ext in js wasm css; do
  hash=$(node -e 'const c = require("crypto"), fs = require("fs");
    process.stdout.write(c.createHash("md5").update(fs.readFileSync(process.argv[1])).digest("base64url"))' \
    "$stage/pkg/$name.$ext")
  mv "$stage/pkg/$name.$ext" "$stage/pkg/$name.$hash.$ext"
  hashes+="$ext: $hash"$'\n'
  [ "$ext" = js ] && js_file="$name.$hash.js"
done
# The loader imports the glue by the name the page loads it under (one module
# instance: the chunks share the main module's memory and table).
split_id=$(cat "$split/id")
sed "s|\"./main.js\"|\"./$js_file\"|" "$split/__wasm_split.js" |
  "$tools/esbuild" --minify --log-level=warning >"$stage/pkg/__wasm_split.$split_id.js"
rm -rf "$split"
# A brotli (quality 11) and a gzip (level 9) copy beside every file that has
# none yet (the renderer script compresses its own), as `--precompress` does.
find "$stage" -type f ! -name '*.br' ! -name '*.gz' -print0 | node -e '
  const fs = require("fs"), zlib = require("zlib");
  const files = fs.readFileSync(0, "utf8").split("\0").filter(Boolean);
  for (const file of files) {
    if (fs.existsSync(file + ".br") && fs.existsSync(file + ".gz")) continue;
    const data = fs.readFileSync(file);
    fs.writeFileSync(file + ".br", zlib.brotliCompressSync(data, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 },
    }));
    fs.writeFileSync(file + ".gz", zlib.gzipSync(data, { level: 9 }));
  }'
rm -rf "$site"
mv "$stage" "$site"
printf '%s' "$hashes" >"$target/release/hash.txt"
echo "[2/$steps] done in $(minutes $((SECONDS - step_start)))"
echo "Built in $(minutes $((SECONDS - start))): $server_bin, $target/release/hash.txt, $site"
