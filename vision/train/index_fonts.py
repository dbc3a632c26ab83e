"""Index views of standard cards drawn from Debian's fonts, for a reader that reads any brand.

The three art decks in the synthetic scenes print their ranks in three typefaces; real decks use
others. These views draw the corner index (rank above suit pip, red or black, on card stock) in
87 serif, sans, condensed, DIN and highway faces at varied sizes and places (a quarter of the 3s
flat-topped, as some decks print them), with what lies near a real corner (the rounded edge and
table, a court card's frame, a big pip cut by the region's edge), then degrade them as a webcam does
(blur, low resolution, noise, glare, colour cast, JPEG). Jokers get the index real decks print
(JOKER stacked down the edge or across the top, a star), not a blank corner; blank corners (the two
corners of a card without an index) are ``NONE``. The layout is ``geometry.index_view``'s: the
top-left region beside the bottom-right one turned upright.

Suit pips come in many designs (vision/train/suit_shapes.py: every installed face's suit glyphs
but the held-out ones, and drawn clubs, spades, hearts and diamonds), one design per card, the big
pip too; drawn from DejaVu alone the reader learnt one club and read URW's as spades (issue 39).
Some views look like less common decks (RATES): four-colour decks (clubs green, diamonds blue),
jumbo indices (a big rank over a small suit), kids'/simple decks (a plain rounded rank, a big plain
suit), dark card stock printed light, and small suits blurred (a club 7-11 px tall in the reader's
64 px input, as a webcam sees it). Some views are loose, as the run time reads them: the card's
corners placed too far out (LOOSE), so the index shows smaller beside more of the card.
"""
from __future__ import annotations

import warnings
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from tqdm import tqdm

from vision.geometry import CARD_SIZE, CORNER, VIEW_SIZE
from vision.train import suit_shapes

FONT_DIRS = [Path("/usr/share/fonts")]
# Debian's three base font packages (``make system-deps``)
BASE_FONTS = ["C059-Bold", "C059-Roman", "NimbusRoman-Bold", "NimbusRoman-Regular", "NimbusSans-Bold",
              "NimbusSans-Regular", "NimbusSansNarrow-Bold", "NimbusSansNarrow-Regular", "P052-Bold", "P052-Roman",
              "URWBookman-Demi", "URWBookman-Light", "URWGothic-Demi", "URWGothic-Book", "DejaVuSans-Bold",
              "DejaVuSansCondensed-Bold", "DejaVuSerif-Bold", "DejaVuSerifCondensed-Bold", "DejaVuSerif",
              "LiberationSans-Bold", "LiberationSansNarrow-Bold", "LiberationSerif-Bold", "LiberationSerif-Regular",
              "NimbusMonoPS-Bold"]
# more faces from the Debian packages ``make train-fonts`` installs (TRAIN_FONTS in the Makefile):
# grotesques, geometric and humanist sans, DIN and highway lettering, slab and old-style serifs,
# condensed display faces, a rounded one
MORE_FONTS = ["OSP-DIN", "RG2014C", "RG2014D", "RG2014E", "Inter-Bold", "Inter-SemiBold", "Inter-Black",
              "B612-Bold", "B612-Regular", "Jura-Bold", "LeagueSpartan-Bold", "LeagueSpartan-Black",
              "BebasNeue-Bold", "BebasNeue-Regular", "RobotoCondensed-Bold", "RobotoCondensed-Regular",
              "Roboto-Bold", "Roboto-Black", "Roboto-Medium", "RobotoSlab-Bold", "OpenSans-Bold", "OpenSans-CondBold",
              "OpenSans-ExtraBold", "Lato-Bold", "Lato-Black", "Cabin-Bold", "Karla-Bold", "EBGaramond12-Bold",
              "LinBiolinum_RB", "LinLibertine_RB", "LinLibertine_R", "FreeSansBold", "FreeSerifBold", "Carlito-Bold",
              "Caladea-Bold", "Cantarell-Bold", "OldStandard-Bold", "CharisSIL-Bold", "Play-Bold", "Dosis-Bold",
              "Dosis-ExtraBold", "Go-Bold", "Go-Medium", "PTC75F", "PTF75F", "PTN77F", "PTS75F", "PTS55F",
              "NationalPark-Heavy", "Manrope-Bold", "Manrope-ExtraBold", "GFSDidotBold", "Courier Prime Bold",
              "ComicNeue-Bold", "AccanthisADFStd-Bold", "GilliusADF-Bold", "GilliusADF-BoldCond",
              "RomandeADFStd-DemiBold", "Verana-Bold", "VeranaSans-Bold", "ClearSans-Bold", "Arimo-Bold", "Tinos-Bold"]
FONT_NAMES = BASE_FONTS + MORE_FONTS
# faces whose 3 has a flat top (a 7-like stroke over the bowl), as some real decks print it and few
# fonts draw it; a quarter of the 3s are drawn in one of them, so that a flat 3 is not read as a 5.
# Inter draws one with its ``cv09`` feature.
FLAT_THREES = ["Inter-Bold", "Inter-SemiBold", "Inter-Black", "B612-Bold", "B612-Regular", "Manrope-Bold",
               "Manrope-ExtraBold", "PTC75F", "PTF75F", "PTN77F", "PTS75F", "PTS55F", "Play-Bold"]
FLAT_FEATURES = {"Inter-Bold": ["cv09"], "Inter-SemiBold": ["cv09"], "Inter-Black": ["cv09"]}
PIP_FONTS = ["DejaVuSans", "DejaVuSans-Bold", "DejaVuSerif", "DejaVuSansMono"]   # the joker's star
# plain, rounded faces for kids'/simple decks (those installed; else any face)
KIDS_FONTS = ["ComicNeue-Bold", "Dosis-ExtraBold", "Dosis-Bold", "Cabin-Bold", "VeranaSans-Bold", "LeagueSpartan-Black",
              "Jura-Bold", "Manrope-ExtraBold", "Karla-Bold", "DejaVuSans-Bold", "URWGothic-Demi", "NimbusSans-Bold"]
# share of views drawn like less common decks (each drawn independently; jumbo and kids' exclusive)
RATES = {"four_colour": 0.08,   # spades black, hearts red, diamonds blue, clubs green (suit_shapes.FOUR_COLOURS)
         "dark": 0.05,          # dark card stock, light print
         "jumbo": 0.08,         # a big rank (0.14-0.175 of the card's height) over a small suit (0.03-0.05)
         "kids": 0.06,          # a plain rounded rank, a big suit (0.075-0.12), drawn shapes 70% of the time
         "small": 0.2,          # a small suit (0.036-0.052 of the card: 7-10.5 px in the 64 px input), blurred
         "loose": 0.3}          # the card's corners placed too far out (LOOSE): the index shows smaller
# how much larger than the card a loose view's card is, about its top-left corner: the index finder
# guesses a card from its index as usual decks print it (svg-cards' small index: about 1.5 times too
# large) and a detector's box on a small or blurred card is loose; views of both show the index smaller
LOOSE = (1.1, 1.6)
REGION_H = CORNER["standard"][1]          # the corner region's height, a share of the card's
FOUR = suit_shapes.FOUR_COLOURS
SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SCALE = 4                                   # drawn at 4x, then reduced: smooth edges


@lru_cache(maxsize=1)
def _installed() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder in FONT_DIRS:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.suffix in (".otf", ".ttf"):
                found.setdefault(path.stem, path)
    return found


def _font_path(name: str) -> Path | None:
    return _installed().get(name)


def available_fonts() -> tuple[list[Path], list[Path]]:
    faces = [p for p in map(_font_path, FONT_NAMES) if p]
    pips = [p for p in map(_font_path, PIP_FONTS) if p]
    if not faces or not pips:
        raise FileNotFoundError("no index fonts found: run `make system-deps` (fonts-dejavu, fonts-liberation, "
                                "fonts-urw-base35)")
    missing = [name for name in FONT_NAMES if not _font_path(name)]
    if missing:
        warnings.warn(f"{len(missing)} of {len(FONT_NAMES)} index typefaces are not installed ({', '.join(missing[:4])}"
                      f"{' ...' if len(missing) > 4 else ''}): run `make train-fonts`", stacklevel=2)
    return faces, pips


@lru_cache(maxsize=4096)
def _font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


def _text(draw: ImageDraw.ImageDraw, font_path: Path, text: str, height: float, x: float, y: float,
          colour, squeeze: float = 1.0, canvas: Image.Image | None = None, max_w: float | None = None,
          features: list[str] | None = None):
    """Draw ``text`` with its ink ``height`` pixels tall, top-left ink corner at (x, y); return its ink box.
    ``features``: OpenType features to turn on (``cv09``: Inter's flat-topped 3)."""
    box = _font(font_path, 100).getbbox(text, features=features)
    ink_h = max(1, box[3] - box[1])
    font = _font(font_path, max(4, int(round(100 * height / ink_h))))
    box = font.getbbox(text, features=features)
    w, h = box[2] - box[0], box[3] - box[1]
    if max_w and w * squeeze > max_w:
        squeeze = max_w / w
    if squeeze != 1.0 and canvas is not None:
        layer = Image.new("L", (w + 4, h + 4), 0)
        ImageDraw.Draw(layer).text((2 - box[0], 2 - box[1]), text, font=font, fill=255, features=features)
        layer = layer.resize((max(1, int((w + 4) * squeeze)), h + 4))
        canvas.paste(Image.new("RGB", layer.size, colour), (int(x), int(y)), layer)
        return (x, y, x + layer.size[0], y + h)
    draw.text((x - box[0], y - box[1]), text, font=font, fill=colour, features=features)
    return (x, y, x + w, y + h)


def _half(rng: np.random.Generator, code: str, style: dict, faces, pips) -> np.ndarray:
    """One corner region (top-left, upright) at SCALE x, RGB; of a card ``style["loose"]`` times too
    large when it is loose (more of the card, the index smaller)."""
    cw, ch = CORNER["standard"]
    W, H = CARD_SIZE[0] * SCALE, CARD_SIZE[1] * SCALE
    loose = style.get("loose", 1.0)
    w, h = int(round(W * cw * loose)), int(round(H * ch * loose))
    rank, suit = code[:-1], code[-1]
    if code in ("JOKER", "NONE"):
        rank, suit = code, "SCHD"[rng.integers(4)]
    img = Image.new("RGB", (w, h), style["paper"])
    draw = ImageDraw.Draw(img)
    ink = style["inks"][suit]
    picture = rank in ("J", "Q", "K", "JOKER") or (rank == "NONE" and rng.random() < 0.4)
    if picture and rng.random() < style["frames"]:          # a court card's (or joker's) picture frame and colours
        fx, fy = style["frame"]
        draw.rectangle([fx * W, fy * H, w + 10, h + 10], outline=style["frame_colour"], width=max(2, SCALE))
        for _ in range(int(rng.integers(2, 6))):
            cx, cy = rng.uniform(fx * W, w), rng.uniform(fy * H, h)
            r = rng.uniform(0.02, 0.06) * W
            colour = tuple(int(c) for c in rng.choice([(200, 40, 40), (40, 60, 160), (230, 190, 40), (20, 20, 20)]))
            draw.ellipse([cx - r, cy - r, cx + r, cy + r * 2], fill=colour)
    elif rank not in ("J", "Q", "K", "A", "JOKER") and rng.random() < style["big_pip"]:   # a big pip reaching in
        _pip(img, style["design"], suit, rng.uniform(0.09, 0.13) * H, rng.uniform(0.18, 0.22) * W,
             rng.uniform(0.12, 0.26) * H, ink)
    if rank == "JOKER":
        _joker(rng, draw, style, W, H, ink)
    if rank in ("JOKER", "NONE"):   # NONE: a corner without an index (the other two corners of a card)
        return _rounded(np.asarray(img).copy(), style, W)
    x, y = style["x"] * W + rng.normal(0, 0.004 * W), style["y"] * H + rng.normal(0, 0.004 * H)
    squeeze = style["squeeze10"] if rank == "10" else 1.0
    font, features = style["font"], None
    if rank == "3" and style["flat_three"] is not None:
        font = style["flat_three"]
        features = FLAT_FEATURES.get(font.stem)
    box = _text(draw, font, rank, style["rank_h"] * H, x, y, ink, squeeze, img, max_w=style["max_w"] * W,
                features=features)
    top = box[3] + style["gap"] * H
    pip_h = min(style["pip_h"] * H, REGION_H * H * 0.97 - top)     # the suit fits in the region
    mask = style["design"].mask(suit, max(4.0, pip_h))
    px = max(0.008 * W, (box[0] + box[2]) / 2 - mask.shape[1] / 2)
    _paste(img, mask, px, top, ink)
    return _rounded(np.asarray(img).copy(), style, W)


def _paste(img: Image.Image, alpha: np.ndarray, x: float, y: float, colour) -> None:
    """Ink of ``colour`` through a float alpha mask, its top-left corner at (x, y)."""
    layer = Image.fromarray(np.round(alpha * 255).astype(np.uint8), "L")
    img.paste(Image.new("RGB", layer.size, tuple(colour)), (int(round(x)), int(round(y))), layer)


def _pip(img: Image.Image, design, suit: str, height: float, x: float, y: float, colour) -> None:
    """A suit pip ``height`` pixels tall in ``design`` (suit_shapes.Design), top-left at (x, y)."""
    _paste(img, design.mask(suit, height), x, y, colour)


def _rounded(arr: np.ndarray, style: dict, W: int) -> np.ndarray:
    r = int(0.056 * W)                                       # the rounded corner shows the table
    yy, xx = np.mgrid[:r, :r]
    outside = (xx - r) ** 2 + (yy - r) ** 2 > r * r
    arr[:r, :r][outside] = style["table"]
    return arr


def _joker(rng: np.random.Generator, draw: ImageDraw.ImageDraw, style: dict, W: int, H: int, ink) -> None:
    """A joker's index as decks print it: JOKER in letters stacked down the edge, or the word across
    the top (running out of the region), with or without a star."""
    x, y = style["x"] * W + rng.normal(0, 0.004 * W), style["y"] * H + rng.normal(0, 0.004 * H)
    star = rng.random() < 0.4
    star_font = _font_path("DejaVuSans") or style["pip_font"]
    if rng.random() < 0.55:
        letter_h = style["rank_h"] * H * rng.uniform(0.35, 0.55)
        for letter in "JOKER":
            box = _text(draw, style["font"], letter, letter_h, x, y, ink)
            y = box[3] + letter_h * rng.uniform(0.12, 0.3)
        if star:
            _text(draw, star_font, "\u2605", letter_h * 1.2, x, y, ink)
    else:
        word = "JOKER" if rng.random() < 0.6 else "Joker"
        if star:
            box = _text(draw, star_font, "\u2605", style["pip_h"] * H, x, y, ink)
            y = box[3] + style["gap"] * H
        _text(draw, style["font"], word, style["rank_h"] * H * rng.uniform(0.45, 0.75), x, y, ink)


def _degrade(rng: np.random.Generator, view: np.ndarray) -> np.ndarray:
    out = view.astype(np.float32)
    out = out * rng.uniform(0.6, 1.1) + rng.uniform(-20, 15)                       # exposure
    out *= rng.uniform(0.92, 1.08, 3)                                                # white balance
    if rng.random() < 0.3:                                                           # glare
        cx, cy, r = rng.uniform(0, VIEW_SIZE, 2).tolist() + [rng.uniform(15, 60)]
        yy, xx = np.mgrid[:VIEW_SIZE, :VIEW_SIZE]
        out += rng.uniform(40, 140) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    angle, shift = rng.normal(0, 3), rng.normal(0, 2.5, 2)
    M = cv2.getRotationMatrix2D((VIEW_SIZE / 2, VIEW_SIZE / 2), angle, rng.uniform(0.92, 1.08))
    M[:, 2] += shift
    out = cv2.warpAffine(out, M, (VIEW_SIZE, VIEW_SIZE), borderMode=cv2.BORDER_REPLICATE)
    low = rng.uniform(0.3, 1.0)                                                      # low resolution
    if low < 0.95:
        small = cv2.resize(out, (max(8, int(VIEW_SIZE * low)),) * 2, interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (VIEW_SIZE, VIEW_SIZE), interpolation=cv2.INTER_LINEAR)
    sigma = rng.uniform(0, 1.6)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out = np.clip(out + rng.normal(0, rng.uniform(0, 8), out.shape), 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
    return cv2.imdecode(jpg, cv2.IMREAD_COLOR)


def make_style(rng: np.random.Generator, faces, pips, **fixed) -> dict:
    """How one card is printed: typeface, suit design (suit_shapes.pick), sizes, places, colours,
    and the less common decks (RATES). ``fixed``: keys to set instead (bench/bench_clubs.py)."""
    paper = tuple(int(v) for v in rng.uniform([225, 222, 210], [255, 255, 252]))
    flat = [f for f in faces if f.stem in FLAT_THREES]
    red = tuple(int(v) for v in rng.uniform([170, 0, 0], [235, 60, 70]))
    black = tuple(int(v) for v in rng.uniform([0, 0, 0], [50, 50, 60]))
    style = {"font": faces[rng.integers(len(faces))], "pip_font": pips[rng.integers(len(pips))],
             "flat_three": flat[rng.integers(len(flat))] if flat and rng.random() < 0.25 else None,
             "rank_h": rng.uniform(0.075, 0.13), "pip_h": rng.uniform(0.045, 0.08), "gap": rng.uniform(0.004, 0.02),
             "x": rng.uniform(0.015, 0.06), "y": rng.uniform(0.02, 0.06), "squeeze10": rng.uniform(0.6, 1.0),
             "paper": paper, "red": red, "black": black,
             "table": tuple(int(v) for v in rng.uniform(0, 200, 3)),
             "frame": (rng.uniform(0.16, 0.22), rng.uniform(0.09, 0.2)),
             "frame_colour": tuple(int(v) for v in rng.uniform(0, 180, 3)),
             "max_w": 0.17, "big_pip": 0.5, "frames": 0.85, "blur": 0.0, "kind": "standard"}
    kind = rng.random()
    kids = kind < RATES["kids"]
    jumbo = RATES["kids"] <= kind < RATES["kids"] + RATES["jumbo"]
    style["design"] = suit_shapes.pick(rng, fonts=(rng.random() < 0.3) if kids else None)
    if rng.random() < RATES["four_colour"]:
        jitter = rng.uniform(-20, 20, 3)
        style["inks"] = {s: tuple(int(v) for v in np.clip(np.array(FOUR[s]) + jitter, 0, 255)) for s in "SHDC"}
        style["kind"] = "four-colour"
    else:
        style["inks"] = {"S": black, "C": black, "H": red, "D": red}
    if rng.random() < RATES["dark"]:                        # dark stock printed light
        style["paper"] = tuple(int(v) for v in rng.uniform([5, 5, 10], [60, 60, 75]))
        light = tuple(int(v) for v in rng.uniform([205, 205, 195], [255, 255, 255]))
        style["inks"] = {s: _lighter(c, light, rng) for s, c in style["inks"].items()}
        style["kind"] += " dark"
    if jumbo:
        style.update(rank_h=rng.uniform(0.14, 0.175), pip_h=rng.uniform(0.03, 0.05), gap=rng.uniform(0.003, 0.012),
                     x=rng.uniform(0.01, 0.035), y=rng.uniform(0.015, 0.04), max_w=0.2)
        style["kind"] += " jumbo"
    elif kids:
        simple = [f for f in faces if f.stem in KIDS_FONTS]
        if simple:
            style["font"] = simple[rng.integers(len(simple))]
        style.update(rank_h=rng.uniform(0.085, 0.12), pip_h=rng.uniform(0.075, 0.12), gap=rng.uniform(0.006, 0.02),
                     y=rng.uniform(0.015, 0.04), big_pip=0.2, flat_three=None)
        style["kind"] += " kids"
    elif rng.random() < RATES["small"]:                     # a webcam's small, soft suit
        style.update(pip_h=rng.uniform(0.036, 0.052), blur=rng.uniform(0.4, 1.1))
        style["kind"] += " small"
    style.update(fixed)
    return style


def _lighter(colour, light, rng: np.random.Generator) -> tuple:
    """The light print of a dark card: black as ``light``, a colour lifted toward white."""
    c = np.array(colour, float)
    if c.max() < 80:
        return tuple(light)
    return tuple(int(v) for v in np.clip(c + (255 - c) * rng.uniform(0.25, 0.5), 0, 255))


def clean(rng: np.random.Generator, code: str, style: dict, faces=None, pips=None, cover: bool = True) -> np.ndarray:
    """The view of one card printed as ``style`` says, before a webcam degrades it (RGB, VIEW_SIZE
    square): its two corner regions side by side (``cover``: one of them covered, 20% of the time)."""
    halves = []
    covered = int(rng.integers(2)) if rng.random() < 0.2 else -1
    if not cover:
        covered = -1
    for side in range(2):
        half = _half(rng, code, style, faces, pips)
        if side == covered:                                  # one corner is covered (another card, a hand)
            colour = tuple(int(v) for v in rng.uniform(0, 255, 3))
            hh, ww = half.shape[:2]
            if rng.random() < 0.5:
                half[:, :] = colour
            else:
                y0 = int(rng.uniform(0.2, 0.8) * hh)
                half[y0:] = colour
        halves.append(cv2.resize(half, (VIEW_SIZE // 2, VIEW_SIZE), interpolation=cv2.INTER_AREA))
    rgb = np.hstack(halves)
    if style["blur"] > 0:
        rgb = cv2.GaussianBlur(rgb, (0, 0), style["blur"])
    return rgb


def view(rng: np.random.Generator, code: str, faces, pips) -> np.ndarray:
    """One degraded index view (BGR, VIEW_SIZE square) of a standard card, loose (LOOSE) RATES["loose"]
    of the time."""
    style = make_style(rng, faces, pips)
    if rng.random() < RATES["loose"]:
        style["loose"] = rng.uniform(*LOOSE)
    return _degrade(rng, cv2.cvtColor(clean(rng, code, style, faces, pips), cv2.COLOR_RGB2BGR))


def write(out: Path, per_card: int, seed: int = 1, split: str = "train", quiet: bool = False) -> int:
    """Add ``per_card`` font views of each of the 52 cards, of jokers and of corners without an index
    (``NONE``) to OUT/split/CODE/."""
    faces, pips = available_fonts()
    rng = np.random.default_rng(seed)
    codes = [r + s for r in RANKS for s in "CDHS"] + ["JOKER", "NONE"]
    n = 0
    for code in tqdm(codes, desc="font index views", disable=quiet):
        folder = Path(out) / split / code
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(per_card):
            cv2.imwrite(str(folder / f"font-{seed}-{i:05d}.jpg"), view(rng, code, faces, pips),
                        [cv2.IMWRITE_JPEG_QUALITY, 92])
            n += 1
    return n
