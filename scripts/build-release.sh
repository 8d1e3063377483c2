#!/usr/bin/env bash
# The release site `make run` serves and `make bench` measures, into SITE_DIR,
# and the server binary beside the hash file that names its files. Plain cargo,
# wasm-bindgen and wasm-opt, what `cargo leptos build --release --precompress`
# runs inside (cargo-leptos 0.3.6: compile/{server,front,style,hash}.rs), so
# `make run` needs no cargo-leptos (≈ 10-25 min to install); `make dev` and
# `make test` still use it. Steps, each printed with the time it took:
#   1. server: cargo build --release --features ssr, RUSTFLAGS and LEPTOS_*
#      as cargo-leptos sets them;
#   2. browser bundle: the pinned nightly with its own standard library
#      (-Zbuild-std), aborting on panic without unwinding or formatting
#      machinery (no location details, no Debug output): 300.5 -> 272.6 KB
#      brotli for the main module a first visit downloads before the page is
#      interactive (docs/benchmarks-browser.md); a panic in the browser then
#      stops the app without a message (debug builds keep them). Then
#      wasm-bindgen --target web, wasm-opt, and the JS glue minified (esbuild,
#      where cargo-leptos uses swc);
#   3. the renderer's own module (scripts/build-renderer.sh);
#   4. the site: the stylesheet through lightningcss (browserquery "defaults",
#      minified, as cargo-leptos does; the npm CLI is the same Rust crate), the
#      public/ assets, content-hashed names (`pensive.<md5>.js|wasm|css`, the
#      hash file `hash.txt` next to the server binary, cargo-leptos' format),
#      and a brotli and a gzip copy beside every file.
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
start=$SECONDS step_start=$SECONDS
server_bin="$target/release/$name"
browser_wasm="$target/front/wasm32-unknown-unknown/wasm-release/$name.wasm"
renderer_wasm="$target/wasm32-unknown-unknown/wasm-release/$name.wasm"
estimate() { # minutes: cold if $2 is missing, else warm
  if [ -e "$2" ]; then echo "$3"; else echo "$1"; fi
}
est=(
  "$(estimate 7 "$server_bin" 1)"
  "$(estimate 3 "$browser_wasm" 1)"
  "$(estimate 2 "$renderer_wasm" 1)"
  1
)
steps=5 # the fifth is `make run` serving
minutes() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
cpu() { # sets $cpu: CPU seconds (user + system) the commands run so far used.
  # `times` in this shell (in a subshell it would count the subshell's own).
  times >"$times_file"
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { sub(/s$/, "", $i); split($i, t, "m"); s += t[1] * 60 + t[2] } print int(s) }' "$times_file")
}
step_cpu=0
step() { # number, what
  step_start=$SECONDS
  cpu
  step_cpu=$cpu
  echo "[$1/$steps] $2 (about ${est[$1 - 1]} min on 2 idle cores) …"
}
done_step() { # number
  local left=0 i
  for ((i = $1; i < ${#est[@]}; i++)); do left=$((left + est[i])); done
  cpu
  echo "[$1/$steps] done in $(minutes $((SECONDS - step_start))) (CPU $(minutes $((cpu - step_cpu)))); $(minutes $((SECONDS - start))) so far, about $left min left"
}
echo "Building the release site into $site (cargo output follows each step)"

step 1 "server (release, stable Rust)"
env "${server_env[@]}" RUSTFLAGS="$server_rustflags" \
  cargo build --package=$name --bin=$name --no-default-features --features=ssr --release
done_step 1

stage="$site.building"
rm -rf "$stage"
mkdir -p "$stage/pkg"

step 2 "browser bundle ($nightly, -Zbuild-std)"
RUSTUP_TOOLCHAIN="$nightly" CARGO_UNSTABLE_BUILD_STD="$browser_build_std" RUSTFLAGS="$browser_rustflags" \
  cargo build --package=$name --lib --target=wasm32-unknown-unknown --target-dir="$target/front" \
  --no-default-features --features=hydrate --profile=wasm-release
wasm-bindgen --target web --no-typescript --out-name $name --out-dir "$stage/pkg" "$browser_wasm"
# cargo-leptos renames <name>_bg.wasm to <name>.wasm, the name Leptos' HydrationScripts loads.
mv "$stage/pkg/${name}_bg.wasm" "$stage/pkg/$name.wasm"
wasm-opt "${browser_wasm_opt[@]}" "$stage/pkg/$name.wasm" -o "$stage/pkg/$name.wasm"
"$tools/esbuild" --minify --log-level=warning "$stage/pkg/$name.js" --outfile="$stage/pkg/$name.min.js"
mv "$stage/pkg/$name.min.js" "$stage/pkg/$name.js"
done_step 2

step 3 "renderer module (src/render_module.rs)"
scripts/build-renderer.sh "$stage" release
done_step 3

step 4 "site: stylesheet, assets, hashed names, brotli and gzip copies"
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
done
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
done_step 4
echo "Built in $(minutes $((SECONDS - start))): $server_bin, $target/release/hash.txt, $site"
