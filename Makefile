# The two set-up commands of the README: `make demo` (the main job) and `make test` (all tests).
# Both create .venv with the machine's python3 and install warref into it first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: demo test bench

$(BIN)/warref: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/warref
	$(BIN)/warref simulate --game woolly --players 3 --games 2000 --seed 1 --plot simulate-woolly.png

test: $(BIN)/warref
	$(BIN)/python -m pytest

bench: $(BIN)/warref
	$(BIN)/python bench/bench_simulate.py
