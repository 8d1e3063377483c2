#!/usr/bin/env bash
# `make test`'s check of the dev server (`make dev`: `cargo leptos watch`):
# starts it on an empty site directory and its own ports, waits for the page,
# then scripts/test-dev-server.mjs loads it in Chromium and waits for the
# renderer module to be ready and for a formula of the demo model's answer
# to render. Exits 0 or 1; bounded in time (DEV_CHECK_BUILD_SECS for the
# build, 3 minutes for the page); the server and every build it started are
# killed on exit.
#
# Its own target directory by default (DEV_CHECK_TARGET_DIR, default
# <target>/dev-check): Leptos compiles differently under `watch` (it reads
# LEPTOS_WATCH at compile time), so sharing target/ with `cargo leptos build`
# would recompile Leptos and Pensive twice per `make test` on a warm machine.
# A clean clone (.ci/run) shares target/ instead: recompiling the Leptos
# crates and Pensive once more costs far less than building every dependency
# again. The site and the log always live in <target>/dev-check, away from
# the site the Playwright suite serves.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
port=${DEV_CHECK_PORT:-3360}
reload_port=$((port + 1))
state=${CARGO_TARGET_DIR:-$root/target}/dev-check
target=${DEV_CHECK_TARGET_DIR:-$state}
build_secs=${DEV_CHECK_BUILD_SECS:-2400}
site=$state/site
log=$state/watch.log
url=http://127.0.0.1:$port

for p in "$port" "$reload_port"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    echo "dev-server check: port $p is in use (set DEV_CHECK_PORT)" >&2
    exit 1
  fi
done
rm -rf "$site"
mkdir -p "$state"

# The demo model, whatever the caller's shell configures.
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(PENSIVE_|OPENAI_|LEPTOS_)' || true)

# Its own session, so one signal reaches cargo-leptos, the cargo builds it
# runs and the server.
CARGO_TARGET_DIR=$target LEPTOS_SITE_ROOT=$site LEPTOS_SITE_ADDR=127.0.0.1:$port \
  LEPTOS_RELOAD_PORT=$reload_port PENSIVE_DEMO_PACE=0.1 \
  setsid cargo leptos watch >"$log" 2>&1 &
watch=$!
stop() {
  kill -TERM -- "-$watch" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 -- "-$watch" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL -- "-$watch" 2>/dev/null || true
}
trap stop EXIT
fail() {
  echo "dev-server check: $1; the end of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
}

start=$SECONDS
until curl -fsS -o /dev/null "$url/healthz" 2>/dev/null; do
  kill -0 "$watch" 2>/dev/null || fail "cargo leptos watch exited"
  grep -qE '^error(\[E[0-9]+\])?:' "$log" && fail "the build failed"
  ((SECONDS - start < build_secs)) || fail "no server after ${build_secs} s"
  sleep 2
done
echo "dev-server check: serving $url after $((SECONDS - start)) s"
timeout 180 node scripts/test-dev-server.mjs "$url" || fail "the page check failed"
