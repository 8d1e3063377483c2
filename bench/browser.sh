#!/usr/bin/env bash
# Browser benchmarks (docs/benchmarks-browser.md): rendering a long reasoning
# stream and a long code block (docs/streaming-markdown.md), page weight (bytes over the wire, as served) against a bare Leptos
# app, and time to interactive.
# Builds both apps in release mode into target/bench (never target/site, which
# the Playwright suite uses), then runs end2end/playwright.bench.config.ts; its
# web servers (ports 7001, 7002, 7011) stop when Playwright ends.
# Results: target/bench/results/<name>.json ({"title", "rows": [...]}).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
bench="$root/target/bench"
mkdir -p "$bench/bin"

for port in 7001 7002 7011; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use: the benchmark servers need 7001, 7002 and 7011" >&2
    exit 1
  fi
done

echo "== building Pensive (release) into $bench/site"
# As `make run` builds it (brotli and gzip copies beside every file).
scripts/build-release.sh "$bench/site"
# Copies, so another build in a shared target directory cannot swap them mid-run.
# hash.txt names the content-hashed files; the server reads it next to itself.
cp "$CARGO_TARGET_DIR/release/pensive" "$CARGO_TARGET_DIR/release/hash.txt" "$bench/bin/"

echo "== building the bare Leptos app (release) into $bench/bare-site"
# Pinned to Pensive's exact dependency versions.
cp Cargo.lock bench/bare-app/Cargo.lock
(cd bench/bare-app && LEPTOS_SITE_ROOT="$bench/bare-site" cargo leptos build --release --precompress)
scripts/gzip-best.sh "$bench/bare-site"
cp "$CARGO_TARGET_DIR/release/bare-app" "$bench/bin/bare-app"

test -x /usr/bin/chromium || { echo "Chromium (/usr/bin/chromium) is missing: make setup-browser" >&2; exit 1; }
[ end2end/node_modules/.package-lock.json -nt end2end/package-lock.json ] ||
  (cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci)

# Results of other benchmarks may already be there (make bench clears them first).
(cd end2end && npx playwright test -c playwright.bench.config.ts)

echo "== results in $bench/results"
ls "$bench/results"
