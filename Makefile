# GPU Atlas: `make build` then `make test`. Both install what they need (uv, the locked
# environment, Chromium for the browser tests) when it is missing.
SHELL := /bin/bash
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
VENV := .venv/.synced
# the browser's SQL engine (DuckDB-WASM and its imports, pinned in pipeline/vendor.py), fetched once
VENDOR := .cache/vendor/.fetched
# use the operating system's certificate store (machines behind a TLS-inspecting proxy)
export UV_SYSTEM_CERTS ?= 1
# compile bytecode at install: many machines set PYTHONDONTWRITEBYTECODE, and compiling the
# dependencies on every start costs seconds per command
export UV_COMPILE_BYTECODE ?= 1

.PHONY: lint build test test-fast bench prices fetch dev validate clean setup browser serve

$(UV):
	$(PYTHON) -m pip install --user --quiet uv || $(PYTHON) -m pip install --user --quiet --break-system-packages uv

$(VENV): uv.lock pyproject.toml | $(UV)
	$(UV) sync --frozen --quiet
	@touch $@

$(VENDOR): pipeline/vendor.py | $(VENV)
	$(UV) run python -m pipeline.vendor
	@touch $@

setup: $(VENV) $(VENDOR)

build: $(VENV) $(VENDOR) ## install, run the whole pipeline, build the site
	$(UV) run gpu-atlas build

serve:                ## serve the built site on http://127.0.0.1:8000/
	$(PYTHON) -m http.server 8000 --bind 127.0.0.1 -d build/site

prices: $(VENV) $(VENDOR) ## re-materialise prices and what depends on them
	$(UV) run gpu-atlas refresh-prices

fetch: $(VENV)        ## fetch new price snapshots (network): every provider, or make fetch PROVIDER=azure
	$(UV) run gpu-atlas fetch-prices $(or $(PROVIDER),--all)

browser:              ## Debian's Chromium for the browser tests
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; }

test: $(VENV) $(VENDOR) browser ## lint and format check, then unit, integration and browser tests
	$(UV) run ruff check pipeline tests
	$(UV) run ruff format --check pipeline tests
	$(UV) run pytest -q -n auto --dist loadfile --durations=15  # a worker per core, a test file on one worker (its fixtures built once)

lint: $(VENV)         ## ruff: undefined and unused names, redefinitions, syntax; the format check
	$(UV) run ruff check pipeline tests
	$(UV) run ruff format --check pipeline tests

test-fast: $(VENV)    ## unit tests only
	$(UV) run pytest -q tests/unit

bench: $(VENV) $(VENDOR) ## time each stage and the vram_fit scale benchmark
	$(UV) run python -m pipeline.bench

validate: $(VENV)     ## Dagster loads the definitions
	$(UV) run dagster definitions validate

dev: $(VENV) $(VENDOR)   ## the Dagster UI on http://127.0.0.1:3000
	$(UV) run dagster dev

clean:
	rm -rf build data .pytest_cache
