#!/usr/bin/env bash
# Tag extraction and decoding benchmarks (Pensive issue 6), ours and the peer's.
#
#   1. cargo bench --features ssr --bench extraction
#        criterion timings; writes the input + chunk lengths and extraction-ours.json
#   2. node bench/peer/extract.mjs
#        the Vercel AI SDK's extractReasoningMiddleware on that same input
#   3. node bench/extraction-report.mjs
#        writes <target>/bench/results/extraction.json
#
# <target> is $CARGO_TARGET_DIR if set, else ./target. Extra arguments go to
# criterion (e.g. `bench/extraction.sh --noplot`); PEER_RUNS sets the peer's
# timed runs (default 2, the fastest counts).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
export PENSIVE_BENCH_DIR="$target/bench"

# The peer's node_modules, installed from the lock file when missing or stale.
peer="$repo/bench/peer"
if [[ ! -f "$peer/node_modules/.package-lock.json" ||
      "$peer/package-lock.json" -nt "$peer/node_modules/.package-lock.json" ]]; then
  (cd "$peer" && npm ci --no-audit --no-fund)
fi

cargo bench --features ssr --bench extraction -- "$@"
node "$peer/extract.mjs" --dir "$PENSIVE_BENCH_DIR" --runs "${PEER_RUNS:-2}"
node "$repo/bench/extraction-report.mjs" "$PENSIVE_BENCH_DIR"
