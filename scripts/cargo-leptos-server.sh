#!/usr/bin/env bash
# What cargo-leptos runs instead of `cargo` to build the server
# (`bin-cargo-command` in Cargo.toml): the server build, then, for `build`,
# the renderer's own module (scripts/build-renderer.sh) into the site's pkg/.
# So `cargo leptos build`, `serve` and `watch` build everything the page loads,
# and `watch` rebuilds the renderer whenever it rebuilds the server: on every
# change to a .rs file under src/ (src/app/markdown/, src/render_module.rs)
# and to src/render_worker.js (`watch-additional-files`).
# cargo-leptos 0.3.6 has no other hook: a second project in workspace metadata
# is not built by `watch` (it serves one project), and it has no pre- or
# post-build command.
# The arguments are cargo's (`build --package=pensive --bin=pensive …`, plus
# `--release` in release); LEPTOS_SITE_ROOT is the site cargo-leptos builds.
set -euo pipefail
cargo "$@"
[ "${1:-}" = build ] || exit 0
mode=debug
for arg in "$@"; do
  [ "$arg" = --release ] && mode=release
done
exec "$(dirname "$0")/build-renderer.sh" "${LEPTOS_SITE_ROOT:?set by cargo-leptos}" "$mode"
