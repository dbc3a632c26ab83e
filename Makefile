# The two set-up commands of the README: `make demo` (the main job) and `make test` (all tests).
# Both create .venv with the machine's python3 and install warref into it first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: demo test bench system-deps art

# Debian packages the card art needs: fonts for warref's own decks, rsvg-convert for the SVG decks
# fetched from npm (Node.js and npm themselves come with the machine).
DEBS = librsvg2-bin fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-urw-base35
system-deps:
	@command -v rsvg-convert >/dev/null && [ -d /usr/share/fonts/truetype/liberation ] \
	  && [ -d /usr/share/fonts/opentype/urw-base35 ] && [ -f /usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf ] \
	  || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) >/dev/null; } \
	  || { echo "Please install: sudo apt-get install $(DEBS)"; exit 1; }
	@command -v npm >/dev/null || { echo "Please install Node.js and npm (the standard deck's art comes from npm)"; exit 1; }

$(BIN)/warref: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/warref
	$(BIN)/warref simulate --game woolly --players 3 --games 2000 --seed 1 --plot simulate-woolly.png

test: $(BIN)/warref system-deps
	$(BIN)/python -m pytest

art: $(BIN)/warref system-deps
	$(BIN)/python -m vision.art.standard --sheet datasets/standard-art.png

bench: $(BIN)/warref system-deps
	$(BIN)/python bench/bench_simulate.py
	$(BIN)/python bench/bench_synth.py
