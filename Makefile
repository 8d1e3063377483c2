# Pensive: `make run` and `make test` set up whatever is missing, then work.
# Set-up is idempotent: each tool is checked first and installed only if absent.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(HOME)/.cargo/bin:$(PATH)
# LEPTOS_OUTPUT_NAME is set for every cargo call in .cargo/config.toml.

CARGO_LEPTOS_VERSION := 0.3.6
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/{getline; gsub(/"/,"",$$3); print $$3}' Cargo.lock)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ADDR ?= $(or $(LEPTOS_SITE_ADDR),127.0.0.1:3000)
PROFILE ?= release

.PHONY: run test setup-build setup-browser build-debug \
        test-rust test-lint test-fmt test-e2e fuzz

FUZZ_SECONDS ?= 60

## make run: build (release) and serve on $(ADDR) — the demo model unless a provider is configured.
run: setup-build
	cargo leptos build $(if $(filter release,$(PROFILE)),--release,)
	LEPTOS_SITE_ADDR=$(ADDR) LEPTOS_SITE_ROOT=target/site ./target/$(PROFILE)/pensive serve

## make test: every layer — fmt, clippy (both builds), cargo tests, Playwright.
test: setup-build setup-browser test-fmt test-lint test-rust test-e2e

test-fmt:
	cargo fmt --check

test-lint:
	cargo clippy --features ssr --all-targets -- -D warnings
	cargo clippy --lib --features hydrate --target wasm32-unknown-unknown -- -D warnings

test-rust:
	cargo test --lib --no-default-features turn::
	cargo test --features ssr

# cargo leptos build right before Playwright: the server binary cargo test links
# (with dev-dependencies unified in) must not be the one the browser hydrates against.
test-e2e: build-debug
	cd end2end && npx playwright test

build-debug:
	cargo leptos build

## make fuzz: each cargo-fuzz target for FUZZ_SECONDS (nightly toolchain, cargo-fuzz).
fuzz:
	@cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
	for target in tags parse; do \
		rm -rf target/fuzz-corpus/$$target && mkdir -p target/fuzz-corpus && cp -r fuzz/corpus/$$target target/fuzz-corpus/$$target; \
		cargo +nightly fuzz run $$target target/fuzz-corpus/$$target -- -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024 || exit 1; \
	done

## Tools for building: wasm target, cargo-leptos, wasm-bindgen (the Cargo.lock version), wasm-opt.
setup-build:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	@cargo leptos --version 2>/dev/null | grep -q "$(CARGO_LEPTOS_VERSION)" || \
		cargo install cargo-leptos --version $(CARGO_LEPTOS_VERSION) --locked --features no_downloads
	@wasm-bindgen --version 2>/dev/null | grep -q "$(WASM_BINDGEN_VERSION)" || \
		cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION)
	@command -v wasm-opt >/dev/null && wasm-opt --version | awk '{exit !($$3 >= 116)}' || $(SUDO) npm install -g binaryen

## Tools for browser tests: Debian's Chromium and the Playwright test runner (no browser download).
setup-browser:
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }
	@[ end2end/node_modules/.package-lock.json -nt end2end/package-lock.json ] || \
		(cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci)

## Load, relay and soak measurements (docs/load.md): results in target/bench/results/.
SOAK_MINUTES ?= 10
.PHONY: bench-load soak

## make bench-load: relay cost, concurrent turns, server-rendered page throughput.
bench-load:
	cargo build --release --features ssr --bin pensive --example load
	cargo run --release --features ssr --example load -- relay
	cargo run --release --features ssr --example load -- concurrency
	cargo run --release --features ssr --example load -- ssr

## make soak: SOAK_MINUTES of continuous turns; fails on any error or growth.
soak:
	cargo build --release --features ssr --bin pensive --example load
	cargo run --release --features ssr --example load -- soak --minutes $(SOAK_MINUTES)
