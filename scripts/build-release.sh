#!/usr/bin/env bash
# The release build `make run` serves and `make bench` measures, into SITE_DIR:
# the server (stable Rust), the browser bundle, and the renderer's own module.
#
# The browser bundle is built with a pinned nightly and its own standard
# library (-Zbuild-std), aborting on panic without unwinding or formatting
# machinery (-Cpanic=immediate-abort, no location details, no Debug output):
# 300.5 -> 272.6 KB brotli for the main module, which is what a first visit
# downloads before the page is interactive (goal <= 300 KB; measured in
# docs/benchmarks-browser.md). Behaviour is the same; a panic in the browser
# then stops the app without a message in the console (debug builds, which
# the tests run, keep the messages).
set -euo pipefail
site=${1:?usage: scripts/build-release.sh SITE_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
nightly=$(sed -n 's/^RELEASE_NIGHTLY := //p' Makefile)
# cargo-leptos empties the site directory on every build: the server first
# (plain cargo: the renderer is built last, below, not into a site the next
# build empties).
LEPTOS_SITE_ROOT="$site" LEPTOS_BIN_CARGO_COMMAND=cargo cargo leptos build --release --server-only
RUSTUP_TOOLCHAIN="$nightly" \
  CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none" \
  LEPTOS_SITE_ROOT="$site" cargo leptos build --release --precompress --frontend-only
scripts/gzip-best.sh "$site"
scripts/build-renderer.sh "$site" release
