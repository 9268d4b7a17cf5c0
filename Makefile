# BenchMax — `make help` lists the targets. `make run` and `make test` work on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
STAMP := .make
PYTEST_ARGS ?=

export REFLEX_USE_SYSTEM_BUN := 1
export REFLEX_TELEMETRY_ENABLED := false
export REFLEX_CHECK_LATEST_VERSION := false
export PYTHONUNBUFFERED := 1
# Use the npm registry npm is configured with, so Reflex's installer never probes mirrors.
export NPM_CONFIG_REGISTRY := $(shell npm config get registry 2>/dev/null)

# Tests are marked by what they need (tests/support/needs.py, and `sandbox` by the preview tests that
# run bubblewrap); the fast set needs no service, no browser and no sandbox.
FAST_TESTS := not (postgres or redis or s3 or stack or sandbox or e2e)
# Two workers per suite: the machines running this have two cores. `make test WORKERS=0` runs
# each suite in one process, as the suite ran before it was split: the baseline that the
# speed-up is measured against. `make coverage` prints the coverage of the product packages
# (pyproject.toml's [tool.coverage]); it is a report, not a gate, and kept out of `make test`
# because tracing slows Python-bound tests by about half and the suite has 25 minutes.
WORKERS ?= 2
BACKEND_TESTS := -m "not e2e" -n $(WORKERS)
# The browser suite is handed out a file at a time (a file's tests share its fixtures); each
# worker builds and serves an app of its own (tests/e2e/conftest.py), so while one worker's
# page waits on the server, the other's runs.
E2E_TESTS := -m e2e tests/e2e -n $(WORKERS) --dist loadfile
COVERAGE := --cov --cov-report=term:skip-covered

.PHONY: help run run-prod test test-fast test-backend test-e2e coverage lint format bench services install clean

help: ## List the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

run: install $(STAMP)/preview ## Set up and run BenchMax on the embedded default (app :3000, evidence :3001)
	$(PY) -m benchmax.cli dev

run-prod: install ## Run the production topology on this machine (app :4700, evidence :4701)
	$(PY) -m benchmax.cli stack

test: lint $(STAMP)/chromium $(STAMP)/preview services ## Set up, lint, and run the whole suite (what CI runs)
	$(PY) -m pytest $(BACKEND_TESTS) $(PYTEST_ARGS)
	$(PY) -m pytest $(E2E_TESTS) $(PYTEST_ARGS)

test-fast: install ## The tests that need no service and no browser, in parallel
	$(PY) -m pytest -m "$(FAST_TESTS)" -n auto $(PYTEST_ARGS)

test-backend: install $(STAMP)/preview services ## Everything but the browser suite, in parallel
	$(PY) -m pytest $(BACKEND_TESTS) $(PYTEST_ARGS)

test-e2e: install $(STAMP)/chromium $(STAMP)/preview services ## Only the browser tests
	$(PY) -m pytest $(E2E_TESTS) $(PYTEST_ARGS)

coverage: install $(STAMP)/preview services ## The backend suite with a coverage report
	$(PY) -m pytest $(BACKEND_TESTS) $(COVERAGE) $(PYTEST_ARGS)

# The same four commands as .pre-commit-config.yaml; mypy's paths (the product, tests and
# bench) are pyproject.toml's [tool.mypy] files. The OpenAPI document is written from the
# routes and linted by the pinned Redocly CLI (tools/openapi-lint/package-lock.json).
lint: install $(STAMP)/openapi-lint ## ruff, mypy, and redocly lint of the OpenAPI document
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(OPENAPI_LINT)

format: install ## Apply ruff formatting and safe fixes
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install services $(STAMP)/chromium $(STAMP)/lighthouse ## Run every benchmark under bench/ and print its figures
	@for script in bench/*.py; do name=$$(basename $$script .py); echo "== bench/$$name"; $(PY) -m bench.$$name || exit 1; done

services: ## Start PostgreSQL and Redis when they are not already running
	@pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | head -n1) main start
	@for i in $$(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done; pg_isready -h 127.0.0.1 -p 5432
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || (mkdir -p /var/lib/redis /var/log/redis && redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log)
	@for i in $$(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done; redis-cli -h 127.0.0.1 -p 6379 ping

install: $(STAMP)/venv $(STAMP)/bun $(STAMP)/scan-tools ## Create .venv and install Python and front-end tooling

# What the safety scan runs besides Python: Debian's tesseract with its English model (the
# OCR that finds keys in screenshots and video frames; nothing is downloaded at run time) and
# ffmpeg (video frames, and the remux that keeps only what playback needs). The DejaVu and
# Liberation fonts draw the generated screenshots the OCR tests and benchmark read.
$(STAMP)/scan-tools:
	@mkdir -p $(STAMP)
	test -x /usr/bin/tesseract -a -s /usr/share/tesseract-ocr/5/tessdata/eng.traineddata -a -x /usr/bin/ffmpeg -a -d /usr/share/fonts/truetype/dejavu -a -d /usr/share/fonts/truetype/liberation || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng ffmpeg fonts-dejavu-core fonts-liberation)
	/usr/bin/tesseract --version | head -n1
	touch $@

# The contributor client is a distribution of its own (clients/python); it is installed here
# with its MCP extra so the suite can test it against the app, as a harness would use it.
$(STAMP)/venv: pyproject.toml clients/python/pyproject.toml
	@mkdir -p $(STAMP)
	test -x $(PY) || python3.11 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	$(PY) -m pip install --quiet -e "./clients/python[mcp]"
	touch $@

$(STAMP)/bun:
	@mkdir -p $(STAMP)
	command -v bun >/dev/null || npm install --global --allow-scripts=bun bun
	bun --version
	touch $@

$(STAMP)/chromium:
	@mkdir -p $(STAMP)
	test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	/usr/bin/chromium --version
	touch $@

# The automated preview: bubblewrap (the local sandbox), Debian's ffmpeg (the recording) and
# the pinned axe-core (sandbox/browser-web-v1/package-lock.json) that the evaluator and the
# browser suite's accessibility checks both inject.
PREVIEW_DIR := sandbox/browser-web-v1
$(STAMP)/preview: $(STAMP)/chromium $(PREVIEW_DIR)/package-lock.json
	@mkdir -p $(STAMP)
	test -x /usr/bin/bwrap -a -x /usr/bin/ffmpeg || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap ffmpeg)
	/usr/bin/bwrap --version
	cd $(PREVIEW_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	test -s $(PREVIEW_DIR)/node_modules/axe-core/axe.min.js
	touch $@

OPENAPI_LINT_DIR := tools/openapi-lint
OPENAPI_LINT := $(OPENAPI_LINT_DIR)/lint.sh
$(STAMP)/openapi-lint: $(OPENAPI_LINT_DIR)/package-lock.json
	@mkdir -p $(STAMP)
	cd $(OPENAPI_LINT_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	test -x $(OPENAPI_LINT_DIR)/node_modules/.bin/redocly
	touch $@

# The pinned Lighthouse bench/pageload.py scores pages with, run on Debian's Chromium (CHROME_PATH):
# no browser is downloaded.
LIGHTHOUSE_DIR := tools/lighthouse
$(STAMP)/lighthouse: $(STAMP)/chromium $(LIGHTHOUSE_DIR)/package-lock.json
	@mkdir -p $(STAMP)
	cd $(LIGHTHOUSE_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	$(LIGHTHOUSE_DIR)/node_modules/.bin/lighthouse --version
	touch $@

clean: ## Remove the virtualenv, build output and embedded data
	rm -rf $(VENV) $(STAMP) .web .web-* .states var .coverage .coverage.*
