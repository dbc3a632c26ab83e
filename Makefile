# The two set-up commands of the README: `make demo` (the main job) and `make test` (all tests).
# Both create .venv with the machine's python3 and install warref into it first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: demo test test-fast wheel-smoke bench locale system-deps art train-env train-fonts train-clutter gpu-bundle

# Debian packages: fonts for warref's own decks, rsvg-convert for the SVG decks fetched from npm
# (Node.js and npm themselves come with the machine), AisleRiot's card themes (more looks for the
# standard deck: `warref synth --more-art`), and chromium for the dashboard's browser tests
# (Playwright drives Debian's chromium; it never downloads a browser), and redis-server: the tests
# start a real one of their own for `warref serve --redis URL`'s room store (tests/conftest.py).
DEBS = librsvg2-bin fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-urw-base35 gnome-cards-data chromium redis-server
system-deps:
	@command -v rsvg-convert >/dev/null && command -v chromium >/dev/null && [ -d /usr/share/fonts/truetype/liberation ] \
	  && [ -d /usr/share/fonts/opentype/urw-base35 ] && [ -f /usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf ] \
	  && [ -f /usr/share/aisleriot/cards/anglo.svgz ] && command -v redis-server >/dev/null \
	  || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) >/dev/null; } \
	  || { echo "Please install: sudo apt-get install $(DEBS)"; exit 1; }
	@command -v npm >/dev/null || { echo "Please install Node.js and npm (the standard deck's art comes from npm)"; exit 1; }

$(BIN)/warref: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

# The main job: a rendered Classic War game through the card reader, the tracker and the referee into
# the dashboard at http://localhost:8000 (Ctrl-C stops it). The standard deck's art comes from npm once.
demo: $(BIN)/warref system-deps
	$(BIN)/warref demo

test: $(BIN)/warref system-deps
	$(BIN)/python -m pytest -n 2 --durations=30    # both cores; the 30 slowest tests listed at the end

# The fast loop while working: everything but the browser tests and the slow ones (tests/conftest.py).
test-fast: $(BIN)/warref
	$(BIN)/python -m pytest -n 2 -m "not browser and not slow"

# warref as a user installs it: the wheel in a fresh venv outside the checkout, its main commands run
# from another folder (.ci/run does this after `make test`; about a minute with pip's cache warm).
wheel-smoke: system-deps
	.ci/wheel-smoke

# the translators' catalogs (web/locale/*.po) brought up to date with what the sources and the rooms
# page say, compiled into the run time's web/locale/*.mo, and the pages' catalogs (web/static/i18n/*.json)
# written from them (docs/translating.md); then translate the new sentences it lists and run it again
locale: $(BIN)/warref
	$(BIN)/python -m web.make_locale

art: $(BIN)/warref system-deps
	$(BIN)/python -m vision.art.standard --sheet datasets/standard-art.png
	$(BIN)/python -m vision.art.aisleriot --sheet datasets/aisleriot-art.png

bench: $(BIN)/warref system-deps
	$(BIN)/python bench/bench_simulate.py
	$(BIN)/python bench/bench_synth.py
	$(BIN)/python bench/bench_reader.py
	$(BIN)/python bench/bench_reader.py --threads 2
	$(BIN)/python bench/bench_ws.py

# The training environment (card reader; ../shared/ENVIRONMENT.md): its own venv, because ultralytics
# brings the GUI opencv-python, which must not share a venv with opencv-python-headless (both own cv2/).
# warref itself goes in without dependencies; the run time never needs any of this.
TRAIN = .venv-train/bin
$(TRAIN)/yolo:
	$(PYTHON) -m venv .venv-train
	$(TRAIN)/pip install --quiet torch==2.14.1 torchvision==0.29.1 ultralytics==8.4.190 onnx onnxslim onnxruntime tqdm pytest hypothesis pillow-heif platformdirs babel
	$(TRAIN)/pip install --quiet --no-deps -e .
	touch $@

# More typefaces for the standard reader's font-drawn index views (vision/train/index_fonts.py): only
# training needs them (a missing one is left out, with a warning).
TRAIN_FONTS = fonts-adf-accanthis fonts-adf-gillius fonts-adf-romande fonts-adf-verana fonts-b612 fonts-bebas-neue \
  fonts-cabin fonts-cantarell fonts-clear-sans fonts-comic-neue fonts-courier-prime fonts-croscore \
  fonts-crosextra-caladea fonts-crosextra-carlito fonts-dosis fonts-ebgaramond fonts-freefont-ttf fonts-gfs-didot \
  fonts-go fonts-inter fonts-jura fonts-karla fonts-lato fonts-league-spartan fonts-linuxlibertine fonts-manrope \
  fonts-oldstandard fonts-open-sans fonts-opendin fonts-paratype fonts-play fonts-roadgeek fonts-roboto-slab \
  fonts-roboto-unhinted fonts-sil-charis fonts-symbola fonts-opensymbol fonts-stix fonts-noto-core fonts-firacode
train-fonts: system-deps
	@dpkg -s $(TRAIN_FONTS) >/dev/null 2>&1 \
	  || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(TRAIN_FONTS) >/dev/null; } \
	  || { echo "Please install: sudo apt-get install $(TRAIN_FONTS)"; exit 1; }

# Pictures for busy synthetic tables (`warref synth --clutter`, vision/synth/clutter.py): GIMP's
# patterns and two desktops' photographs. Only making training data needs them.
CLUTTER = gimp-data mate-backgrounds ukui-wallpapers
train-clutter: system-deps
	@dpkg -s $(CLUTTER) >/dev/null 2>&1 \
	  || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(CLUTTER) >/dev/null; } \
	  || { echo "Please install: sudo apt-get install $(CLUTTER)"; exit 1; }

train-env: $(TRAIN)/yolo train-fonts train-clutter

# The detector trained on a borrowed GPU machine in one call (vision/train/gpu.py): this writes the
# bundle the call carries (.gpu/: ultralytics wheels, fonts, the busy tables' pictures) and prints it.
gpu-bundle: train-env
	$(TRAIN)/python -m vision.train.gpu bundle
