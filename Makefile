# Pensive: `make run` and `make test` set up whatever is missing, then work.
# Set-up is idempotent: each tool is checked first and installed only if absent.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin:$(PATH)
# LEPTOS_OUTPUT_NAME is set for every cargo call in .cargo/config.toml.

CARGO_LEPTOS_VERSION := 0.3.6
LEPTOSFMT_VERSION := 0.1.33
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/{getline; gsub(/"/,"",$$3); print $$3}' Cargo.lock)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ADDR ?= $(or $(LEPTOS_SITE_ADDR),127.0.0.1:3000)
PROFILE ?= release
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
# Builds the release browser bundle (scripts/build-release.sh); keep the two equal.
RELEASE_NIGHTLY := nightly-2026-05-19
# The Python MCP SDK the hostile fixture server runs on (tests/fixtures/mcp/hostile_server.py).
MCP_PYTHON_VERSION := 2.3.0
MCP_VENV := tests/fixtures/mcp/.venv

.PHONY: run dev fmt test check mutants setup-site setup-wasm-bindgen setup-wasm-split setup-build setup-fmt setup-release setup-browser setup-nginx setup-redis setup-python-mcp build-debug \
        test-rust test-mcp-conformance test-lint test-fmt test-dev test-e2e fuzz coverage

FUZZ_SECONDS ?= 60

## make run: build (release) and serve on $(ADDR) — the demo model unless a provider is configured.
## The release site is built without cargo-leptos (scripts/build-release.sh: cargo, wasm-bindgen,
## wasm-opt; the browser bundle with a pinned nightly, the renderer's own module) and has a
## brotli and a gzip copy beside every file; the server sends the one the browser accepts
## (src/server/http/static_files.rs). Steps are numbered, each with its time. PROFILE=debug
## uses `cargo leptos build`, which builds the renderer too (scripts/cargo-leptos-server.sh).
run: $(if $(filter release,$(PROFILE)),setup-release,setup-build)
ifeq ($(PROFILE),release)
	scripts/build-release.sh $(TARGET_DIR)/site
	@echo "[3/3] serving http://$(ADDR) (the demo model unless a provider is set; Ctrl-C stops)"
else
	cargo leptos build
endif
	LEPTOS_SITE_ADDR=$(ADDR) LEPTOS_SITE_ROOT=$(TARGET_DIR)/site $(TARGET_DIR)/$(PROFILE)/pensive serve

## make dev: the dev server, `cargo leptos watch` (debug) on $(ADDR): a change under src/
## (the renderer's module included) or style/ rebuilds what it touches and reloads the page.
dev: setup-build
	LEPTOS_SITE_ADDR=$(ADDR) cargo leptos watch

## make check: the quick loop (formatting, lints, the pure core and the unit tests), no
## browser, no servers; a few minutes warm.
check: setup-build setup-fmt test-fmt test-lint
	cargo test --lib --no-default-features turn::
	cargo test --features ssr --lib

## make test: every layer — fmt, clippy (both builds), cargo tests, the dev server, Playwright.
test: setup-build setup-browser setup-nginx setup-redis setup-python-mcp test-fmt test-lint test-rust test-mcp-conformance test-dev test-e2e

## `cargo fmt` leaves `view!` bodies alone; leptosfmt (leptosfmt.toml) formats them.
test-fmt: setup-fmt
	cargo fmt --check
	@leptosfmt --check --quiet src || \
		{ leptosfmt --check src | grep -v '^✅' || true; echo 'view! bodies drift: run make fmt'; exit 1; }

## make fmt: format everything the way test-fmt checks it.
fmt: setup-fmt
	leptosfmt --quiet src
	cargo fmt

setup-fmt:
	@leptosfmt --version 2>/dev/null | grep -q "$(LEPTOSFMT_VERSION)" || \
		$(CARGO_INSTALL) --locked leptosfmt --version $(LEPTOSFMT_VERSION)

test-lint:
	python3 scripts/test_import_circles.py
	python3 scripts/import_circles.py src
	cargo clippy --features ssr --all-targets -- -D warnings
	cargo clippy --lib --features hydrate --target wasm32-unknown-unknown -- -D warnings
	cargo clippy --lib --no-default-features --features render-module --target wasm32-unknown-unknown -- -D warnings

## COVERAGE=1 (.ci/run): the server build's tests run once, instrumented, with the
## coverage gate (make coverage), instead of a plain run and then an instrumented one.
COVERAGE ?=
COVERED_PENSIVE := target/llvm-cov-target/debug/pensive

test-rust:
	cargo test --lib --no-default-features turn::
ifeq ($(COVERAGE),1)
	$(MAKE) coverage
else
	cargo test --features ssr
endif

## The client scenarios of @modelcontextprotocol/conformance (end2end/package.json) against
## `pensive mcp list|call`, offline on 127.0.0.1; what does not apply and what is known to
## fail are listed, with reasons, in tests/fixtures/mcp/conformance/ (docs/tools.md).
## Uses the binary `cargo test --features ssr` just built (built here only if missing),
## or with COVERAGE=1 the instrumented one (writing no profile data).
test-mcp-conformance: setup-browser
ifeq ($(COVERAGE),1)
	PENSIVE=$(COVERED_PENSIVE) LLVM_PROFILE_FILE=/dev/null \
		tests/fixtures/mcp/conformance/run.sh
else
	@test -x target/debug/pensive || cargo build --features ssr --bin pensive
	tests/fixtures/mcp/conformance/run.sh
endif

# `make dev` from an empty site: the page hydrates, the renderer is ready, a formula renders.
test-dev: setup-build setup-browser
	scripts/test-dev-server.sh

# cargo leptos build right before Playwright: the server binary cargo test links
# (with dev-dependencies unified in) must not be the one the browser hydrates against.
test-e2e: build-debug
	cd end2end && npx playwright test

build-debug:
	cargo leptos build

## make fuzz: every cargo-fuzz target (`cargo fuzz list`) for FUZZ_SECONDS each (nightly,
## cargo-fuzz). Runs on a scratch copy of fuzz/corpus/<target>, replays fuzz/regressions/<target>,
## uses fuzz/dicts/<dict>.dict; bounded in time, memory (MiB) and per-input time (s, a hang).
## Every target runs; the failing ones are listed at the end.
FUZZ_RSS_MB ?= 1024
FUZZ_TIMEOUT ?= 10
# Inputs up to 100 KB: deep nesting (100 KB of '>') only shows its cost that large.
FUZZ_MAX_LEN ?= 102400
fuzz:
	@cargo fuzz --version >/dev/null 2>&1 || $(CARGO_INSTALL) --locked cargo-fuzz
	failed=""; for target in $$(cargo +nightly fuzz list); do \
		case $$target in storage) dict=storage;; ndjson_framer) dict=turn_events;; markdown) dict=markdown;; tags|reducer) dict=;; *) dict=upstream;; esac; \
		rm -rf target/fuzz-corpus/$$target && mkdir -p target/fuzz-corpus && cp -r fuzz/corpus/$$target target/fuzz-corpus/$$target; \
		cargo +nightly fuzz run $$target target/fuzz-corpus/$$target $$(ls -d fuzz/regressions/$$target 2>/dev/null) -- \
			-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=$(FUZZ_RSS_MB) -timeout=$(FUZZ_TIMEOUT) -max_len=$(FUZZ_MAX_LEN) \
			$${dict:+-dict=fuzz/dicts/$$dict.dict} || failed="$$failed $$target"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failing targets:$$failed (inputs in fuzz/artifacts/)"; exit 1; fi

## Tools for the site: wasm target, wasm-bindgen (the Cargo.lock version), wasm-opt, and
## scripts/site-tools (lightningcss, esbuild: npm ci) and wasm-opt; quick (downloads only).
setup-site:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || \
		{ echo "[tools] rustup target add wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown; }
	@command -v wasm-opt >/dev/null && wasm-opt --version | awk '{exit !($$3 >= 116)}' || \
		{ echo "[tools] npm install -g binaryen (wasm-opt)"; $(SUDO) npm install -g binaryen; }
	@[ scripts/site-tools/node_modules/.package-lock.json -nt scripts/site-tools/package-lock.json ] || \
		{ echo "[tools] npm ci in scripts/site-tools (lightningcss, esbuild)"; \
		  cd scripts/site-tools && npm ci --no-audit --no-fund; }

## Tools compiled from crates.io are built to be quick to build, not to run: their own release
## profiles ask for fat LTO in one codegen unit (cargo-leptos, cargo-llvm-cov), which took
## cargo-leptos 10-28 min on 2 cores. `cargo_install,N` builds at opt-level N without LTO: 1 for
## tools that work on our files (wasm-bindgen binds a 1.5 MB module, leptosfmt formats src/),
## 0 for cargo-leptos, which only drives cargo and wasm-bindgen (5 min instead of 12 on a fresh
## machine; its no-op build 3.3 s against 2.8). Measured in docs/build-times.md.
cargo_install = CARGO_PROFILE_RELEASE_OPT_LEVEL=$(1) CARGO_PROFILE_RELEASE_LTO=false \
	CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo install
CARGO_INSTALL := $(call cargo_install,1)

## wasm-bindgen's CLI, the version of the wasm-bindgen crate in Cargo.lock (they must match).
## Not --locked: its lock file pins a webpki-roots prerelease the index lacks.
## scripts/build-release.sh runs this beside its builds: nothing needs it before they end.
setup-wasm-bindgen:
	@wasm-bindgen --version 2>/dev/null | grep -q "$(WASM_BINDGEN_VERSION)" || \
		{ echo "[tools] installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (once; about 3 min of CPU)"; \
		  $(CARGO_INSTALL) wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); }

## wasm-split-cli (crates.io wasm_split_cli_support; cargo-leptos' `--split` uses its library):
## splits the release browser bundle at its `later!` functions (src/app/later.rs) so a first
## visit downloads only the page's own code. scripts/build-release.sh runs this beside its builds.
WASM_SPLIT_VERSION := 0.2.4
setup-wasm-split:
	@cargo install --list | grep -qx "wasm_split_cli_support v$(WASM_SPLIT_VERSION):" || \
		{ echo "[tools] installing wasm-split-cli $(WASM_SPLIT_VERSION) (once; about 1 min of CPU)"; \
		  $(CARGO_INSTALL) --locked wasm_split_cli_support --version $(WASM_SPLIT_VERSION) --features build-binary; }

## Tools for cargo-leptos builds (`make dev`, `make test`): the site's, and cargo-leptos.
setup-build: setup-site setup-wasm-bindgen
	@cargo leptos --version 2>/dev/null | grep -q "$(CARGO_LEPTOS_VERSION)" || \
		{ echo "[tools] installing cargo-leptos $(CARGO_LEPTOS_VERSION) (once; about 5 min on 2 cores) …"; \
		  $(call cargo_install,0) --locked cargo-leptos --version $(CARGO_LEPTOS_VERSION) --features no_downloads; }

## The site's tools and the pinned nightly with its std sources, for the release browser
## bundle only (scripts/build-release.sh): `make run` and `make bench` need it, `make test` does not.
setup-release: setup-site
	@rustup component list --toolchain $(RELEASE_NIGHTLY) --installed 2>/dev/null | grep -q '^rust-src' || \
		{ echo "[tools] rustup toolchain install $(RELEASE_NIGHTLY) with rust-src (once; about 1 min)"; \
		  rustup toolchain install $(RELEASE_NIGHTLY) --profile minimal -c rust-src; }

## Tools for browser tests: Debian's Chromium and the Playwright test runner (no browser download).
setup-browser:
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }
	@# A font with an OpenType MATH table, so display math draws large operators (math.spec).
	@test -f /usr/share/fonts/truetype/dejavu/DejaVuMathTeXGyre.ttf || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y fonts-dejavu-extra; }
	@[ end2end/node_modules/.package-lock.json -nt end2end/package-lock.json ] || \
		(cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci)

## nginx for the reverse-proxy test (tests/proxy_nginx.rs), started by the test itself;
## openssl makes that test's self-signed certificate (the TLS server block).
setup-nginx:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y nginx; }
	@command -v openssl >/dev/null || { $(SUDO) apt-get update && $(SUDO) apt-get install -y openssl; }

## Debian's redis-server for the replicas' tests (src/server/turn_service/runs/store/
## redis_tests.rs), started by each test on a free loopback port without persistence.
setup-redis:
	@command -v redis-server >/dev/null || test -x /usr/bin/redis-server || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y redis-server; }

## The hostile MCP fixture server's venv (tests/mcp_hostile.rs, the Playwright tool stories):
## made again only when missing or when MCP_PYTHON_VERSION changes.
setup-python-mcp:
	@$(MCP_VENV)/bin/python -c 'import importlib.metadata as m; exit(m.version("mcp") != "$(MCP_PYTHON_VERSION)")' 2>/dev/null || \
		{ rm -rf $(MCP_VENV) && python3 -m venv $(MCP_VENV) && \
		  $(MCP_VENV)/bin/pip install --quiet --disable-pip-version-check "mcp==$(MCP_PYTHON_VERSION)"; }

## make coverage: line coverage of the server build and the pure core (cargo-llvm-cov),
## per folder; fails below 90% for src/turn and src/server.
coverage:
	@rustup component list --installed | grep -q '^llvm-tools' || rustup component add llvm-tools-preview
	@cargo llvm-cov --version 2>/dev/null | grep -q 0.9.1 || $(CARGO_INSTALL) --locked cargo-llvm-cov --version 0.9.1
	CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0 \
		cargo llvm-cov --features ssr --json --summary-only --output-path target/coverage.json
	python3 scripts/coverage_summary.py target/coverage.json --min src/turn=90 src/server=90

## Load, relay and soak measurements (docs/load.md): results in target/bench/results/.
SOAK_MINUTES ?= 10
.PHONY: bench setup-bench bench-load soak

## make bench: every benchmark (docs/benchmarks*.md, docs/load.md), then the results
## table in README.md (between the bench markers) and docs/benchmarks.md.
bench: setup-release setup-build setup-browser setup-bench
	rm -rf target/bench/results
	bench/extraction.sh
	$(MAKE) bench-load
	bench/browser.sh
	python3 bench/report.py

## Tools the benchmarks need: wrk (SSR load) from Debian; node comes with the machine.
setup-bench:
	@command -v wrk >/dev/null || { $(SUDO) apt-get update && $(SUDO) apt-get install -y wrk; }

## make bench-load: relay cost, concurrent turns, attaching again, two replicas with Redis,
## server-rendered page throughput.
bench-load: setup-bench setup-redis
	cargo build --release --features ssr --bin pensive --example load
	cargo run --release --features ssr --example load -- relay
	cargo run --release --features ssr --example load -- concurrency
	cargo run --release --features ssr --example load -- reattach
	cargo run --release --features ssr --example load -- replicas
	cargo run --release --features ssr --example load -- ssr

## make mutants: cargo-mutants on the family tables, the request builders and the mock's
## rules, against the lib tests (slow: about 40 s a mutant on 2 cores, so not in CI).
## MUTANTS_SHARD=k/n runs one shard; the outcome is summarised in docs/mutants.md.
MUTANTS_SHARD ?= 0/1
mutants: setup-build
	@command -v cargo-mutants >/dev/null || $(CARGO_INSTALL) --locked cargo-mutants
	@mkdir -p target
	cargo mutants --in-place --features ssr --cargo-test-arg=--lib --shard $(MUTANTS_SHARD) \
		-f 'src/server/providers/reasoning/*.rs' -e 'src/server/providers/reasoning/checks.rs' \
		-f 'src/server/providers/*/request.rs' -f 'src/server/mock/upstream/rules/**/*.rs' \
		-o target/mutants

## make soak: SOAK_MINUTES of continuous turns; fails on any error or growth.
soak:
	cargo build --release --features ssr --bin pensive --example load
	cargo run --release --features ssr --example load -- soak --minutes $(SOAK_MINUTES)
