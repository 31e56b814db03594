# One target per routine task. `make demo` and `make test` do all set-up themselves.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play serve demo test lint typecheck check browser services bench compiled golden i18n screenshots clean research-test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

play: $(STAMP)  ## a game in the terminal against three bots
	$(BIN)/minodice play

serve: $(STAMP)  ## the main job: the game in the browser (and for bots and network clients)
	$(BIN)/minodice serve

demo: $(STAMP)  ## a simulated game replayed on screen (no keyboard needed)
	$(BIN)/minodice demo

test: $(STAMP) browser services  ## the whole test suite, type check and lint (installs what it needs)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest

# The fast tests (not marked slow) on every core (pytest-xdist's -n auto: two workers on
# a 2-core machine), keeping Python's compiled modules (__pycache__, which git ignores)
# even where PYTHONDONTWRITEBYTECODE is set: compiling every module and rewriting every
# test's asserts again costs each test process about 8 s of CPU. make test runs the whole
# suite in one process, as before, with the same hypothesis settings.
check: $(STAMP)  ## the inner loop: lint, types and the fast tests (no server, browser, terminal)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -m "not slow" -n auto

browser:  ## Debian's chromium for the browser tests (installed once, as root or with sudo)
	sh scripts/ensure_chromium.sh

services:  ## Debian's PostgreSQL and Redis for the store's tests (installed once; never left running)
	sh scripts/ensure_services.sh

lint: $(STAMP)  ## ruff, and the layering contract (which package may import which)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports --no-logo

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)  ## engine speed against OpenSpiel's oh_hell, pure and compiled (installs open_spiel)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	-$(BIN)/python scripts/compile_core.py
	$(BIN)/python benchmarks/engine.py

research-test: $(STAMP)  ## the game-AI research interfaces (installs the research extra into .venv)
	$(BIN)/pip install --quiet -e '.[dev,research]'
	$(BIN)/mypy
	$(BIN)/pytest -rs tests/research src/minodice/envs src/minodice/vector

compiled: $(STAMP)  ## optional: the engine's core compiled with mypyc into build/compiled (needs a C compiler)
	$(BIN)/python scripts/compile_core.py

golden: $(STAMP)  ## regenerate tests/golden from its script
	$(BIN)/python tests/golden/regenerate.py

i18n: $(STAMP)  ## merge new screen messages into the catalogues, then check them
	$(BIN)/python scripts/i18n.py extract
	$(BIN)/python scripts/i18n.py update
	$(BIN)/python scripts/i18n.py check

screenshots: $(STAMP) browser  ## remake docs/screenshots (a phone game, for the README)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build/compiled
