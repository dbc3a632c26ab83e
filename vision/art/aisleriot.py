"""More looks for the standard deck: the card themes of Debian's ``gnome-cards-data`` (AisleRiot's).

The three npm artworks (vision/art/standard.py) are all a reader of the standard deck learnt from
at first, and on real photos it knew their court pictures and pip styles only. AisleRiot's themes
(GPL-3+, Debian package ``gnome-cards-data``, which ``make test`` and ``make demo`` install) add
13 more: old and modern courts, photographic and flat ones, cream and white card stock, other
typefaces in the corners. Only the themes whose corners print the English indices (A K Q J, 10) are used: the
French (R D V), German (K D B), Italian and Russian ones would teach other letters, the
four-colour ones other suit colours, and two put no index on their court cards. Jokers are kept
only from the themes whose corners print the word (JOKER_THEMES); the others print a star or
nothing there.

Each theme is one SVG of 13 x 5 cells: rows clubs, diamonds, hearts, spades (ace, 2-10, jack,
queen, king), then the black and red jokers and one or two backs. ``fetch`` renders each theme
once with ``rsvg-convert``, cuts every cell to its card (the cell's opaque pixels), brings it to
the common card shape (``standard.card_shape``) and caches it as
<cache>/art/aisleriot/<theme>/<name>.png (names as in standard.py: QH, BACK-1). Nothing is
committed.

    python -m vision.art.aisleriot [--cache DIR] [--sheet OUT.png]
"""
from __future__ import annotations

import argparse
import functools
import io
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from filelock import FileLock
from PIL import Image

from .base import CARD_H, CARD_W, DEFAULT_CACHE, CardImage
from .standard import card_shape, code_of, contact_sheet

THEMES = ("anglo", "anglo_modern", "anglo_poker", "atlasnye", "dondorf", "neoclassical", "orell",
          "ornamental", "paris", "plastic", "simplistic", "tango", "tigullio")
FOLDER = Path("/usr/share/aisleriot/cards")
PACKAGE = "gnome-cards-data"
COLUMNS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ROWS = ("C", "D", "H", "S")
JOKER_THEMES = ("anglo", "anglo_modern", "atlasnye", "neoclassical", "ornamental", "plastic", "tango")
JOKER_CELLS = {"JOKER-black": 0, "JOKER-red": 1}     # columns of the fifth row
BACK_CELLS = (2, 3)          # columns of the fifth row that hold a back (the third always, the fourth in some)
SHEET_WIDTH = 13 * CARD_W    # one theme's sheet is rendered at about CARD_W a card
RENDER_VERSION = 2


class ThemeMissing(RuntimeError):
    """The AisleRiot themes are not installed; the message says how to install them."""


def faces(cache: Path = DEFAULT_CACHE) -> list[CardImage]:
    """The 52 faces of every theme in THEMES (artwork ``aisleriot-<theme>``), and the jokers of
    JOKER_THEMES."""
    return [c for c in _images(Path(cache).resolve()) if c.face_up]


def backs(cache: Path = DEFAULT_CACHE) -> list[CardImage]:
    return [c for c in _images(Path(cache).resolve()) if not c.face_up]


def fetch(cache: Path = DEFAULT_CACHE, folder: Path = FOLDER) -> Path:
    """Render whatever theme is not cached yet; return <cache>/art/aisleriot. One process at a
    time (a lock file): the others wait, then find the cache complete."""
    lock = Path(cache).resolve() / "art" / ".aisleriot.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(lock):
        return _fetch(cache, folder)


def _fetch(cache: Path, folder: Path) -> Path:
    root = Path(cache).resolve() / "art" / "aisleriot"
    manifest = root / "manifest.json"
    missing = [t for t in THEMES if not (folder / f"{t}.svgz").is_file()]
    if missing:
        if manifest.exists():      # rendered before; the package may have gone since
            return root
        raise ThemeMissing(f"the AisleRiot card themes are not installed (no {folder / (missing[0] + '.svgz')}): "
                           f"apt-get install {PACKAGE}  (or: make system-deps)")
    wanted = {"render": RENDER_VERSION, "themes": list(THEMES),
              "sizes": {t: (folder / f"{t}.svgz").stat().st_size for t in THEMES}}
    if manifest.exists():
        try:
            done = json.loads(manifest.read_text())
        except ValueError:
            done = {}
        if {k: done.get(k) for k in wanted} == wanted and all((root / f).exists() for f in done.get("files", [])):
            return root
        shutil.rmtree(root)
    if shutil.which("rsvg-convert") is None:
        raise ThemeMissing("rsvg-convert not found on PATH: apt-get install librsvg2-bin")
    from tqdm import tqdm          # a dependency of warref (vision/lab/evaluate.py uses it too)
    files = []
    for theme in tqdm(THEMES, desc="AisleRiot themes", unit="theme"):
        for name, card in cut(render(folder / f"{theme}.svgz"), jokers=theme in JOKER_THEMES).items():
            path = root / theme / f"{name}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(card).save(path)
            files.append(str(path.relative_to(root)))
    manifest.write_text(json.dumps({**wanted, "files": sorted(files)}, indent=1) + "\n")
    return root


def render(svgz: Path) -> np.ndarray:
    """A theme's whole sheet as RGBA (rsvg-convert reads the gzipped SVG itself)."""
    result = subprocess.run(["rsvg-convert", "--width", str(SHEET_WIDTH), "--format", "png", str(svgz)],
                            capture_output=True)
    if result.returncode != 0:
        raise ThemeMissing(f"rsvg-convert could not render {svgz}: "
                           f"{result.stderr.decode(errors='replace').strip()[-400:]}")
    return np.asarray(Image.open(io.BytesIO(result.stdout)).convert("RGBA"))


def cut(sheet: np.ndarray, jokers: bool = False) -> dict[str, np.ndarray]:
    """The 13 x 5 grid's cards by name, each cut to its opaque pixels and brought to the common
    card shape; a back cell with nothing in it is skipped. ``jokers``: the two jokers too."""
    h, w = sheet.shape[:2]
    cells = {f"{rank}{suit}": (r, c) for r, suit in enumerate(ROWS) for c, rank in enumerate(COLUMNS)}
    cells |= {f"BACK-{k + 1}": (4, c) for k, c in enumerate(BACK_CELLS)}
    if jokers:
        cells |= {name: (4, c) for name, c in JOKER_CELLS.items()}
    out = {}
    for name, (r, c) in cells.items():
        cell = sheet[round(r * h / 5):round((r + 1) * h / 5), round(c * w / 13):round((c + 1) * w / 13)]
        rows, cols = np.nonzero(cell[..., 3] > 128)
        if rows.size < 0.5 * cell.shape[0] * cell.shape[1]:
            if name.startswith("BACK") and name != "BACK-1":
                continue
            raise ThemeMissing(f"no card in the {name} cell of the theme's sheet")
        card = cell[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
        out[name] = card_shape(np.ascontiguousarray(card))
    return out


@functools.cache
def _images(cache: Path) -> tuple[CardImage, ...]:
    root = fetch(cache)
    files = [Path(f) for f in json.loads((root / "manifest.json").read_text())["files"]]
    cards = []
    for file in files:
        image = np.asarray(Image.open(root / file).convert("RGBA"))
        if image.shape != (CARD_H, CARD_W, 4):
            raise ThemeMissing(f"{root / file} is {image.shape}; delete {root} and run again")
        image.flags.writeable = False
        cards.append(CardImage("standard", code_of(file.stem), f"aisleriot-{file.parent.name}", image))
    return tuple(sorted(cards, key=lambda c: c.code == "BACK"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.art.aisleriot", description=(
        "Render the AisleRiot card themes (Debian gnome-cards-data) as more standard-deck artworks."))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--sheet", type=Path, help="write a contact sheet of every card here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        cards = faces(args.cache) + backs(args.cache)
    except ThemeMissing as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"{len(THEMES)} themes, {sum(c.face_up for c in cards)} faces, "
          f"{sum(not c.face_up for c in cards)} backs ({time.perf_counter() - start:.1f} s)")
    if args.sheet:
        contact_sheet(cards, artworks=[f"aisleriot-{t}" for t in THEMES], scale=0.12).save(args.sheet)
        print(f"contact sheet: {args.sheet}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
