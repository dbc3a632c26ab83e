"""The standard deck's card art: three open artworks fetched from npm at build time.

- "letele":    @letele/playing-cards 0.1.0 (Adrian Kennard's designs, CC0): React components,
               turned into SVG files by vision/art/letele_to_svg.mjs (Node).
- "svg-cards": svg-cards 4.0.2 (David Bellot, Huub de Beer and others, LGPL-2.1): one SVG sprite.
- "cardsjs":   cardsJS 1.1.1 (Vectorized Playing Cards 1.3 by Chris Aguilar, LGPL-3): one SVG a card;
               it has no jokers.

Nothing here is committed: ``fetch`` runs ``npm pack`` into <cache>/npm/, checks each tarball's
SHA-256, renders every SVG with ``rsvg-convert`` and stores the finished cards as PNGs in
<cache>/art/standard/<artwork>/<name>.png. A name is the card's code (QH, 10D), or JOKER-<colour>
or BACK-<colour>; the code is the part before the dash. Later calls only load those PNGs.

Every card is stretched to CARD_W x CARD_H (the designs are within 3.5 % of 5:7, and stretching keeps
each design's own border on the common outline), composited onto white and cut to the rounded
rectangle every artwork shares, so the outside of the corners is the only transparency.

    python -m vision.art.standard [--cache DIR] [--sheet OUT.png]
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np
from filelock import FileLock
from PIL import Image, ImageDraw

from referee.say import say

from .base import CARD_H, CARD_W, DEFAULT_CACHE, CardImage, rounded_outline

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")
FACE_CODES = tuple(rank + suit for rank in RANKS for suit in SUITS)  # the deck file's order
ARTWORKS = ("letele", "svg-cards", "cardsjs")

# artwork -> (npm package, pinned version, SHA-256 of the registry tarball)
PACKAGES = {
    "letele": ("@letele/playing-cards", "0.1.0",
               "578a8fbdb70f03128b79d31482b7485a4462b71e9777ef6c5c305674da6e6156"),
    "svg-cards": ("svg-cards", "4.0.2",
                  "d442a2c3c912bbb5dbc69eac86ef8c374fdcc6be55e4c4d3e8a3e021d69c4cd5"),
    "cardsjs": ("cardsJS", "1.1.1",
                "94517ce8945a7ce66057ab6cbb88b2f01b9b9a9b8160d4a13a363c6a0c6c4733"),
}
RENDER_VERSION = 1  # bump when the rendering changes, so cached PNGs are redrawn
LETELE_TO_SVG = Path(__file__).resolve().parent / "letele_to_svg.mjs"
SVG_CARDS_BACKS = {"blue": "#0062ff", "red": "#ff0000", "green": "#008000", "black": "#000000"}

SvgSource = Callable[[], bytes]  # produces one card's standalone SVG document


class ArtFetchError(RuntimeError):
    """Fetching or rendering the standard card art failed; the message says how to fix it (made with say(), so
    that `warref demo --lang pt` says it in Portuguese: English exactly as it was)."""


# --- public API -------------------------------------------------------------------------------

def faces(cache: Path) -> list[CardImage]:
    """All 52 faces in the three artworks, plus the jokers of letele and svg-cards."""
    return [c for c in _images(Path(cache).resolve()) if c.face_up]


def backs(cache: Path) -> list[CardImage]:
    """The backs the three packages ship (svg-cards' one back in several colours)."""
    return [c for c in _images(Path(cache).resolve()) if not c.face_up]


def fetch(cache: Path) -> Path:
    """Download, convert and render whatever is not cached yet; return <cache>/art/standard.

    Several processes may ask at once (the test suite's workers, a demo beside `warref serve`): the
    first renders under a lock file while the others wait, then find the cache complete."""
    cache = Path(cache).resolve()
    root = cache / "art" / "standard"
    if _complete(root):
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(root.parent / ".standard.lock"):
        if not _complete(root):
            _fill(cache, root)
    return root


def _wanted() -> dict:
    return {"render": RENDER_VERSION, "packages": {a: list(p[:2]) for a, p in PACKAGES.items()}}


def _complete(root: Path) -> bool:
    """The manifest names this rendering of these packages, and every file it lists is there."""
    try:
        done = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    wanted = _wanted()
    return ({k: done.get(k) for k in wanted} == wanted
            and all((root / f).exists() for f in done.get("files", ())))


def _fill(cache: Path, root: Path) -> None:
    manifest = root / "manifest.json"
    wanted = _wanted()
    if manifest.exists():
        try:
            done = json.loads(manifest.read_text())
        except ValueError:
            done = {}
        if {k: done.get(k) for k in wanted} != wanted:
            shutil.rmtree(root)  # other versions or another rendering: draw everything again
    jobs: dict[Path, SvgSource] = {}
    for artwork in ARTWORKS:
        package = _npm_package(artwork, cache / "npm")
        for name, source in SOURCES[artwork](package, cache / "npm").items():
            jobs[root / artwork / f"{name}.png"] = source
    todo = [(path, source) for path, source in jobs.items() if not path.exists()]
    if todo:
        _require("rsvg-convert", say("install librsvg's command-line tool (apt-get install librsvg2-bin)"))
        _render_all(todo)
    files = sorted(str(p.relative_to(root)) for p in jobs)
    root.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps({**wanted, "files": files}, indent=1) + "\n")


def code_of(name: str) -> str:
    """The card code in a cached PNG's name: QH.png -> QH, JOKER-red.png -> JOKER."""
    return name.split("-")[0]


# --- the three sources: PNG name -> SVG document ------------------------------------------------

def _letele(package: Path, work: Path) -> dict[str, SvgSource]:
    """Exports are suit then rank: Ha, H10, Hj, Hq, Hk; jokers J1 (colour) and J2 (black);
    backs B1 (black) and B2 (red)."""
    svg_dir = work / f"letele-svg-{PACKAGES['letele'][1]}"
    if not (svg_dir / "done").exists():
        _require("node", say("install Node.js (it comes with npm), e.g. apt-get install nodejs npm"))
        shutil.rmtree(svg_dir, ignore_errors=True)
        _run(["node", str(LETELE_TO_SVG), str(package / "dist" / "index.esm.js"), str(svg_dir)],
             say("converting @letele/playing-cards' React components to SVG"))
        (svg_dir / "done").touch()
    names = {code: code[-1] + (code[:-1].lower() if code[0] in "JQKA" else code[:-1])
             for code in FACE_CODES}
    names |= {"JOKER-red": "J1", "JOKER-black": "J2", "BACK-black": "B1", "BACK-red": "B2"}
    return {ours: _file(svg_dir / f"{theirs}.svg") for ours, theirs in names.items()}


def _svg_cards(package: Path, work: Path) -> dict[str, SvgSource]:
    """Sprite ids are suit_rank: heart_1 (ace), heart_10, heart_jack, heart_queen, heart_king;
    joker_red, joker_black; one back whose colour is the fill of the <use> element."""
    sprite = package / "svg-cards.svg"
    suits = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
    ranks = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
    uses = {code: f'xlink:href="#{suits[code[-1]]}_{ranks.get(code[:-1], code[:-1])}"'
            for code in FACE_CODES}
    uses |= {"JOKER-red": 'xlink:href="#joker_red"', "JOKER-black": 'xlink:href="#joker_black"'}
    uses |= {f"BACK-{name}": f'xlink:href="#back" fill="{colour}"'
             for name, colour in SVG_CARDS_BACKS.items()}
    return {name: functools.partial(_sprite_card, sprite, use) for name, use in uses.items()}


def _cardsjs(package: Path, work: Path) -> dict[str, SvgSource]:
    """Files are cards/<rank><suit>.svg with T for ten (TD.svg); Red_Back.svg, Blue_Back.svg."""
    cards = package / "cards"
    names = {code: code.replace("10", "T") for code in FACE_CODES}
    names |= {"BACK-red": "Red_Back", "BACK-blue": "Blue_Back"}
    return {ours: _file(cards / f"{theirs}.svg") for ours, theirs in names.items()}


SOURCES: dict[str, Callable[[Path, Path], dict[str, SvgSource]]] = {
    "letele": _letele, "svg-cards": _svg_cards, "cardsjs": _cardsjs}


def _file(path: Path) -> SvgSource:
    if not path.exists():
        raise ArtFetchError(say("{path} is missing from the unpacked package; delete {folder} and run `python -m "
                                "vision.art.standard` again.", path=str(path), folder=str(path.parents[1])))
    return path.read_bytes


@functools.cache
def _sprite_text(sprite: Path) -> str:
    return sprite.read_text(encoding="utf-8")


def _sprite_card(sprite: Path, use: str) -> bytes:
    """The whole sprite (its <defs> hold every card at the origin) plus one <use> of a card."""
    text = _sprite_text(sprite)
    text = text.replace("<svg ", '<svg preserveAspectRatio="none" ', 1)
    cut = text.rindex("</svg>")
    return (text[:cut] + f"<use {use}/>" + text[cut:]).encode("utf-8")


# --- npm ----------------------------------------------------------------------------------------

def _npm_package(artwork: str, npm_dir: Path) -> Path:
    """Unpack the pinned tarball (fetched with `npm pack` unless already there); its package/ dir."""
    name, version, sha256 = PACKAGES[artwork]
    stem = f"{name.lstrip('@').replace('/', '-')}-{version}"  # npm's tarball name
    unpacked = npm_dir / stem
    if (unpacked / "package").is_dir():
        return unpacked / "package"
    npm_dir.mkdir(parents=True, exist_ok=True)
    tarball = npm_dir / f"{stem}.tgz"
    if not tarball.exists():
        package = f"{name}@{version}"
        _require("npm", say("install Node.js and npm, e.g. apt-get install nodejs npm"))
        _run(["npm", "pack", package], say("downloading {package} from the npm registry (check the network and `npm "
                                           "config get registry`)", package=package), cwd=npm_dir)
        if not tarball.exists():
            raise ArtFetchError(say("`npm pack {package}` did not write {tarball} in {folder}; delete that folder and "
                                    "try again.", package=package, tarball=tarball.name, folder=str(npm_dir)))
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if digest != sha256:
        tarball.unlink()
        raise ArtFetchError(say("{tarball} has SHA-256 {digest}, expected {sha256}: the download was damaged or the "
                                "registry's tarball changed. It was deleted; run again, and if it persists check the "
                                "package by hand.", tarball=tarball.name, digest=digest, sha256=sha256))
    tmp = tempfile.mkdtemp(dir=npm_dir, prefix=f".{stem}-")
    try:
        with tarfile.open(tarball) as tar:
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(tmp, **safe)
        os.replace(tmp, unpacked)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return unpacked / "package"


def _require(tool: str, how: str) -> None:
    """ArtFetchError where ``tool`` is not on PATH; ``how`` (a say() sentence) says how to install it."""
    if shutil.which(tool) is None:
        raise ArtFetchError(say("{tool} not found on PATH, needed for the standard deck's card art: {how}.", tool=tool,
                                how=how))


def _run(command: list[str], doing: str, cwd: Path | None = None) -> None:
    """``command`` run; ArtFetchError where it fails: ``doing`` (a say() sentence) says what it was for, then the
    command's own words (its stderr's end, as it wrote them)."""
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise ArtFetchError(say("Failed {doing}: `{command}` exited with {code}: {output}", doing=doing,
                                command=" ".join(command), code=result.returncode, output=result.stderr.strip()[-800:]))


# --- rendering ----------------------------------------------------------------------------------

def _render_all(todo: list[tuple[Path, SvgSource]]) -> None:
    try:
        from tqdm import tqdm     # start-up (about 15 ms): only to render the art, once per cache
    except ImportError:  # progress is a nicety
        def tqdm(items, **_):
            return items
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        done = pool.map(lambda job: _render_one(*job), todo)
        for _ in tqdm(done, total=len(todo), desc="standard card art", unit="card"):
            pass


def _render_one(path: Path, source: SvgSource) -> None:
    svg = source()
    result = subprocess.run(["rsvg-convert", "--width", str(CARD_W), "--height", str(CARD_H),
                             "--format", "png"], input=svg, capture_output=True)
    if result.returncode != 0:
        card = f"{path.parent.name}/{path.stem}"
        raise ArtFetchError(say("rsvg-convert could not render {card}: {output}", card=card,
                                output=result.stderr.decode(errors="replace").strip()[-800:]))
    card = card_shape(np.asarray(Image.open(io.BytesIO(result.stdout)).convert("RGBA")))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    Image.fromarray(card).save(partial, format="PNG")
    os.replace(partial, path)


def card_shape(rgba: np.ndarray) -> np.ndarray:
    """Any RGBA card picture -> CARD_H x CARD_W, opaque on white inside the common rounded outline."""
    if rgba.shape[:2] != (CARD_H, CARD_W):
        rgba = np.asarray(Image.fromarray(rgba).resize((CARD_W, CARD_H), Image.LANCZOS))
    alpha = rgba[..., 3:4].astype(np.float32) / 255
    rgb = rgba[..., :3].astype(np.float32) * alpha + 255 * (1 - alpha)
    outline = rounded_outline()[..., None] * 255
    return np.concatenate([rgb, outline], axis=2).round().astype(np.uint8)


# --- loading ------------------------------------------------------------------------------------

@functools.cache
def _images(cache: Path) -> tuple[CardImage, ...]:
    """Every cached card, faces in deck order then backs; the arrays are read-only (shared)."""
    root = fetch(cache)
    order = {code: i for i, code in enumerate(FACE_CODES + ("JOKER", "BACK"))}
    files = [Path(f) for f in json.loads((root / "manifest.json").read_text())["files"]]
    files.sort(key=lambda f: (ARTWORKS.index(f.parent.name), order[code_of(f.stem)], f.stem))
    cards = []
    for file in files:
        image = np.asarray(Image.open(root / file).convert("RGBA"))
        if image.shape != (CARD_H, CARD_W, 4):
            raise ArtFetchError(say("{file} is {shape}, not {wanted}; delete {folder} and run `python -m "
                                    "vision.art.standard` again.", file=str(root / file), shape=str(image.shape),
                                    wanted=str((CARD_H, CARD_W, 4)), folder=str(root)))
        image.flags.writeable = False
        cards.append(CardImage("standard", code_of(file.stem), file.parent.name, image))
    return tuple(sorted(cards, key=lambda c: c.code == "BACK"))  # stable: keeps the order above


# --- contact sheet ------------------------------------------------------------------------------

def contact_sheet(cards: list[CardImage], scale: float = 0.2, artworks: list[str] | None = None) -> Image.Image:
    """One block an artwork (``artworks``, default ARTWORKS): rows C D H S by rank 2..A, then a row
    of jokers and backs; labelled."""
    w, h, pad, label = round(CARD_W * scale), round(CARD_H * scale), 8, 14
    cell_w, cell_h = w + pad, h + label + pad
    blocks = [a for a in (artworks or ARTWORKS) if any(c.artwork == a for c in cards)]
    sheet = Image.new("RGBA", (pad + 13 * cell_w, len(blocks) * (5 * cell_h + label + pad)),
                      (40, 110, 60, 255))
    draw = ImageDraw.Draw(sheet)
    for b, artwork in enumerate(blocks):
        top = b * (5 * cell_h + label + pad)
        draw.text((pad, top + 2), artwork, fill="white")
        extras = 0
        for card in (c for c in cards if c.artwork == artwork):
            if card.code in FACE_CODES:
                row, col = SUITS.index(card.code[-1]), RANKS.index(card.code[:-1])
            else:
                row, col, extras = 4, extras, extras + 1
            x, y = pad + col * cell_w, top + label + pad + row * cell_h
            thumb = Image.fromarray(card.image).resize((w, h), Image.LANCZOS)
            sheet.alpha_composite(thumb, (x, y))
            draw.text((x, y + h + 1), card.code, fill="white")
    return sheet


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.art.standard", description=(
        "Fetch the standard deck's card art from npm and render it (cached)."))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="cache directory")
    parser.add_argument("--sheet", type=Path, help="write a contact sheet of every card here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        root = fetch(args.cache)
        cards = faces(args.cache) + backs(args.cache)
    except ArtFetchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for artwork in ARTWORKS:
        mine = [c for c in cards if c.artwork == artwork]
        print(f"{artwork}: {sum(c.face_up for c in mine)} faces, "
              f"{sum(not c.face_up for c in mine)} backs")
    print(f"{len(cards)} cards in {root} ({time.perf_counter() - start:.1f} s)")
    if args.sheet:
        contact_sheet(cards).save(args.sheet)
        print(f"contact sheet: {args.sheet}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
