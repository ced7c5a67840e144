# LedgerForge: `make run` builds a release from the embedded default corpus,
# `make test` runs the tests. Both install what they need first.
SHELL := /bin/bash
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
export DAGSTER_HOME ?= $(CURDIR)/data/dagster_home
export OMP_THREAD_LIMIT ?= 1

# Debian packages: OCR, PDF rendering, .xls conversion and sheet screenshots.
DEBIAN_PACKAGES := tesseract-ocr tesseract-ocr-eng poppler-utils libreoffice-calc-nogui
SYSTEM_TOOLS := tesseract pdftoppm soffice

.PHONY: install system-deps python-deps run test bench lint clean-data

install: system-deps python-deps

system-deps:
	@missing=""; for t in $(SYSTEM_TOOLS); do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -z "$$missing" ]; then echo "system tools present: $(SYSTEM_TOOLS)"; exit 0; fi; \
	echo "missing system tools:$$missing -> installing Debian packages: $(DEBIAN_PACKAGES)"; \
	if [ "$$(id -u)" != "0" ] || ! command -v apt-get >/dev/null; then \
	  echo "ERROR: cannot install$$missing: need root and apt-get (Debian). Install: $(DEBIAN_PACKAGES)" >&2; exit 1; fi; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEBIAN_PACKAGES) >/dev/null \
	  || { echo "ERROR: apt-get install $(DEBIAN_PACKAGES) failed" >&2; exit 1; }

$(BIN)/.installed: pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c requirements.lock -e '.[dev]'
	@touch $@

python-deps: $(BIN)/.installed

run: install
	$(BIN)/ledgerforge build

test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

bench: install
	$(BIN)/python -m benchmarks

lint: install
	$(BIN)/ruff check pipeline assets oracles tests benchmarks

clean-data:
	rm -rf data/warehouse data/cache data/blobs data/corpus data/dagster_home
