# fuselab: the two commands a newcomer needs are `make demo` and `make test`.
# Both install missing system packages first (scripts/install-deps.sh), then build.

CARGO ?= cargo
PYTHON ?= python3
LLVM_BIN := /usr/lib/llvm-22/bin

.PHONY: deps build demo test python-test lint lit ci clean

deps:
	@bash scripts/install-deps.sh

# One build serves every target: `cargo test --no-run` builds the tools (fuse-opt,
# fuse-bench) together with the test harness, with one feature set, so `make test`
# afterwards compiles nothing again.
build: deps
	$(CARGO) test --workspace --no-run --quiet

## The mission's command on the bundled seed example: Inductor's whole pipeline, one fused kernel.
demo: build
	./target/debug/fuse-opt --inductor-fuse examples/seed_10op.mlir

## Run every test: Rust unit tests, every test/**/*.mlir through the lit-like harness,
## and the Python package's tests.
test: deps
	$(CARGO) test --workspace
	$(MAKE) python-test

## The Python package: `pip install ./python` (the extension in the dev profile here, which
## reuses the build above; a plain `pip install ./python` builds it optimized), then pytest.
python-test: deps
	bash scripts/install-python-deps.sh
	MATURIN_PEP517_ARGS="--profile dev" $(PYTHON) -m pip install --quiet ./python
	$(PYTHON) -m pytest -q -c python/pyproject.toml python/tests

## Formatting and lints, as CI checks them.
lint: deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## Cross-check: the same test files under LLVM's own lit and FileCheck.
lit: build
	$(LLVM_BIN)/lit -sv test/

ci: test lint lit

clean:
	$(CARGO) clean
