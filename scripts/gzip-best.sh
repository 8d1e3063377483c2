#!/usr/bin/env bash
# Rewrites every .gz that `cargo leptos build --release --precompress` wrote
# under SITE_DIR with gzip -9: bench/browser.sh's bare app, the one site still
# built with cargo-leptos (scripts/build-release.sh writes its own with zlib
# level 9). cargo-leptos compresses with libflate: 534 KB for the release WASM,
# where gzip -9 gives 457 KB (its brotli copy is as small as brotli gets, so it
# stays). Browsers that do not take brotli get these: Chromium offers brotli
# only over HTTPS and to localhost, not to http://<LAN address>.
set -euo pipefail
dir=${1:?usage: scripts/gzip-best.sh SITE_DIR}
find "$dir" -type f -name '*.gz' -print0 | while IFS= read -r -d '' gz; do
  gzip -9 -n -c "${gz%.gz}" >"$gz.tmp"
  mv "$gz.tmp" "$gz"
done
