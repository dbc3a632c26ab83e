"""Real-looking clutter for synthetic tables (``warref synth --clutter``): photographed surfaces and
things that are not cards.

The real photos in ../shared/realcards/edje/ show cards on carpet, brick, books, newspapers and
baskets, with knives, toys and spinners lying across them; the procedural tables (``textures``)
and the cups, dice and phones (``objects``) are cleaner than that, and the detector scores a real
card on a busy background low (models/detector.md). Here the table is sometimes a photographed
texture instead, and flat things cut from photographs (book covers, printed pages, boxes), long
thin things (knives, pens) and odd blobs lie under and over the cards.

The pictures come from Debian packages, never downloaded at run time and never committed:
``gimp-data`` (GIMP's patterns: wood, stone, brick, fabric, leather, paper, cork),
``mate-backgrounds`` and ``ukui-wallpapers`` (photographs). ``make train-clutter`` installs them;
only making training data needs them.
"""
from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from .layout import Item
from .objects import PX_PER_MM

PACKAGES = ("gimp-data", "mate-backgrounds", "ukui-wallpapers")
PATTERNS = Path("/usr/share/gimp/2.0/patterns")
PHOTOS = Path("/usr/share/backgrounds")
LONGEST = 900             # a photo is kept at most this many pixels on its longer side
TABLE = 0.5               # the chance that the table is a photographed surface
UNDER = (0, 1, 2, 3, 4)   # how many things lie under the cards ...
UNDER_P = (0.2, 0.3, 0.25, 0.15, 0.1)
OVER = (0, 1, 2)          # ... and over them
OVER_P = (0.55, 0.33, 0.12)


class ClutterMissing(RuntimeError):
    """The pictures clutter is cut from are not installed; the message says how to install them."""


def read_pattern(path: Path) -> np.ndarray:
    """A GIMP pattern (.pat: a big-endian header of header size, version, width, height, bytes per
    pixel and the magic ``GPAT``, then the pixels) as RGB uint8. Written here because neither
    OpenCV nor Pillow reads the format, and it is six numbers and a block of pixels."""
    data = Path(path).read_bytes()
    if len(data) < 24 or data[20:24] != b"GPAT":
        raise ValueError(f"{path} is not a GIMP pattern")
    size, _, w, h, depth = (int.from_bytes(data[4 * i:4 * i + 4], "big") for i in range(5))
    if depth not in (1, 2, 3, 4) or len(data) < size + w * h * depth:
        raise ValueError(f"{path}: a GIMP pattern of {w}x{h}x{depth} does not fit its {len(data)} bytes")
    px = np.frombuffer(data, np.uint8, w * h * depth, size).reshape(h, w, depth)
    if depth <= 2:                               # grey, or grey and alpha
        return np.repeat(px[..., :1], 3, axis=2).copy()
    return px[..., :3].copy()


def _shrunk(image: np.ndarray) -> np.ndarray:
    scale = LONGEST / max(image.shape[:2])
    if scale >= 1:
        return image
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def pictures() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(patterns, photos) as RGB uint8 from PATTERNS and PHOTOS, loaded once per process."""
    return _pictures(Path(PATTERNS), Path(PHOTOS))


@functools.lru_cache(maxsize=2)
def _pictures(patterns: Path, photos: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    pats = []
    for path in sorted(Path(patterns).rglob("*.pat")):
        try:
            pat = read_pattern(path)
        except ValueError:
            continue
        if min(pat.shape[:2]) >= 32:
            pats.append(pat)
    pics = []
    for path in sorted(p for p in Path(photos).rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None and min(image.shape[:2]) >= 64:
            pics.append(cv2.cvtColor(_shrunk(image), cv2.COLOR_BGR2RGB))
    if not pats or not pics:
        raise ClutterMissing(f"no clutter pictures (GIMP patterns under {patterns}, photographs under {photos}): "
                             f"apt-get install {' '.join(PACKAGES)}  (or: make train-clutter)")
    return pats, pics


def _crop(rng: np.random.Generator, image: np.ndarray, h: int, w: int) -> np.ndarray:
    """A random region of ``image`` brought to h x w (tiled first where it is smaller)."""
    ih, iw = image.shape[:2]
    zoom = rng.uniform(0.3, 1.0)
    ch, cw = max(8, int(ih * zoom)), max(8, int(iw * zoom))
    if cw / ch > w / h:
        cw = max(8, int(ch * w / h))
    else:
        ch = max(8, int(cw * h / w))
    ch, cw = min(ch, ih), min(cw, iw)
    y, x = int(rng.integers(0, ih - ch + 1)), int(rng.integers(0, iw - cw + 1))
    return cv2.resize(image[y:y + ch, x:x + cw], (w, h), interpolation=cv2.INTER_LINEAR)


def _tiled(rng: np.random.Generator, pattern: np.ndarray, h: int, w: int, px: float) -> np.ndarray:
    """``pattern`` repeated over h x w, each of its pixels ``px`` output pixels, turned a random
    quarter and mirrored at random."""
    pattern = np.rot90(pattern, int(rng.integers(4)))
    if rng.random() < 0.5:
        pattern = pattern[:, ::-1]
    ph, pw = max(2, int(pattern.shape[0] * px)), max(2, int(pattern.shape[1] * px))
    tile = cv2.resize(np.ascontiguousarray(pattern), (pw, ph), interpolation=cv2.INTER_LINEAR)
    reps = (h // ph + 2, w // pw + 2, 1)
    y, x = int(rng.integers(ph)), int(rng.integers(pw))
    return np.tile(tile, reps)[y:y + h, x:x + w]


def table(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """A photographed surface over an h x w table texture (``scale`` texture pixels per mm), as
    ``textures.table_texture`` gives one: RGB float32 in 0..1."""
    pats, pics = pictures()
    if rng.random() < 0.7:
        pattern = pats[rng.integers(len(pats))]
        mm = rng.uniform(0.25, 1.5)                       # one pattern pixel on the table, in mm
        out = _tiled(rng, pattern, h, w, mm * scale)
    else:
        out = _crop(rng, pics[rng.integers(len(pics))], h, w)
    tint = rng.uniform(0.75, 1.15) * rng.uniform(0.92, 1.08, 3)
    return np.clip(out.astype(np.float32) / 255 * tint, 0, 1).astype(np.float32)


def _text(rng: np.random.Generator, page: np.ndarray) -> None:
    """Lines of made-up print on a page, in place (a book or a newspaper lies on many real tables)."""
    h, w = page.shape[:2]
    size = rng.uniform(0.25, 0.8)
    step = int(size * 34) + 2
    ink = tuple(int(v) for v in rng.integers(0, 70, 3)) + (255,)
    letters = "abcdefghijklmnopqrstuvwxyz    ETAOINSHRDLU"
    margin = int(rng.uniform(0.04, 0.12) * w)
    for y in range(margin + step, h - margin, step):
        line = "".join(letters[i] for i in rng.integers(len(letters), size=int(w / (size * 14)) + 1))
        cv2.putText(page, line, (margin, y), cv2.FONT_HERSHEY_SIMPLEX if rng.random() < 0.6 else cv2.FONT_HERSHEY_COMPLEX,
                    size, ink, 1 if size < 0.6 else 2, cv2.LINE_AA)


def flat(rng: np.random.Generator, most: float = 320) -> tuple[np.ndarray, tuple[float, float]]:
    """A book, a printed page, a box or a photograph lying flat: a rectangle 50 to ``most`` mm a side."""
    pats, pics = pictures()
    w_mm, h_mm = rng.uniform(50, most), rng.uniform(50, most)
    w, h = int(w_mm * PX_PER_MM), int(h_mm * PX_PER_MM)
    kind = rng.choice(["picture", "page", "cover"], p=[0.45, 0.3, 0.25])
    if kind == "page":
        base = np.full((h, w, 3), rng.integers(215, 252), np.float32) * rng.uniform(0.96, 1.0, 3)
        sprite = np.dstack([base.astype(np.uint8), np.full((h, w), 255, np.uint8)])
        _text(rng, sprite)
        if rng.random() < 0.5:                           # a picture on the page
            ph, pw = int(h * rng.uniform(0.2, 0.5)), int(w * rng.uniform(0.3, 0.8))
            y, x = int(rng.integers(0, h - ph + 1)), int(rng.integers(0, w - pw + 1))
            sprite[y:y + ph, x:x + pw, :3] = _crop(rng, pics[rng.integers(len(pics))], ph, pw)
    else:
        source = pics[rng.integers(len(pics))] if kind == "picture" or rng.random() < 0.5 else pats[rng.integers(len(pats))]
        rgb = _crop(rng, source, h, w) if source.shape[0] * source.shape[1] > 128 * 128 else \
            _tiled(rng, source, h, w, rng.uniform(0.5, 2.0))
        sprite = np.dstack([rgb, np.full((h, w), 255, np.uint8)])
        if kind == "cover":                              # a spine or a frame of one colour, and a title
            edge = int(rng.uniform(0.03, 0.15) * min(w, h))
            colour = tuple(int(v) for v in rng.integers(0, 256, 3)) + (255,)
            cv2.rectangle(sprite, (0, 0), (w - 1, h - 1), colour, edge)
            if rng.random() < 0.7:
                _text(rng, sprite[int(h * 0.1):int(h * 0.35), :])
    return sprite, (w_mm, h_mm)


def stick(rng: np.random.Generator) -> tuple[np.ndarray, tuple[float, float]]:
    """A knife, a pen or a spoon: a long, thin, rounded shape with a handle of another colour."""
    w_mm, h_mm = rng.uniform(6, 28), rng.uniform(110, 240)
    w, h = int(w_mm * PX_PER_MM), int(h_mm * PX_PER_MM)
    sprite = np.zeros((h, w, 4), np.uint8)
    metal = rng.random() < 0.5
    blade = np.array((190, 192, 196) if metal else rng.integers(0, 256, 3)) * rng.uniform(0.7, 1.1)
    handle = rng.integers(0, 256, 3)
    split = int(h * rng.uniform(0.35, 0.65))
    r = max(1, w // 2)
    for (y0, y1), colour in (((0, split), blade), ((split, h), handle)):
        c = tuple(int(v) for v in np.clip(colour, 0, 255)) + (255,)
        cv2.rectangle(sprite, (0, y0 + r), (w - 1, max(y0 + r, y1 - r)), c, -1)
        cv2.circle(sprite, (r, y0 + r), r, c, -1, cv2.LINE_AA)
        cv2.circle(sprite, (r, max(y0 + r, y1 - r)), r, c, -1, cv2.LINE_AA)
    if metal:                                            # a shine along it
        x = np.linspace(-1, 1, w)[None, :, None]
        shine = 1 + 0.35 * np.exp(-((x - rng.uniform(-0.5, 0.5)) ** 2) / 0.05)
        sprite[:split, :, :3] = np.clip(sprite[:split, :, :3] * shine, 0, 255).astype(np.uint8)
    return sprite, (w_mm, h_mm)


def blob(rng: np.random.Generator) -> tuple[np.ndarray, tuple[float, float]]:
    """A toy or an ornament: a lumpy shape 30-130 mm across, filled from a photograph."""
    _, pics = pictures()
    w_mm, h_mm = rng.uniform(30, 130), rng.uniform(30, 130)
    w, h = int(w_mm * PX_PER_MM), int(h_mm * PX_PER_MM)
    t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    radius = 1 + 0.25 * rng.normal(size=24)
    radius = np.convolve(np.r_[radius[-2:], radius, radius[:2]], np.ones(5) / 5, "valid")
    pts = np.stack([w / 2 + np.cos(t) * radius * w / 2.4, h / 2 + np.sin(t) * radius * h / 2.4], 1)
    alpha = np.zeros((h, w), np.uint8)
    cv2.fillPoly(alpha, [np.clip(pts, 0, [w - 1, h - 1]).astype(np.int32)], 255, cv2.LINE_AA)
    rgb = _crop(rng, pics[rng.integers(len(pics))], h, w)
    return np.dstack([rgb, alpha]), (w_mm, h_mm)


MAKERS = {"flat": flat, "stick": stick, "blob": blob}


def things(rng: np.random.Generator, footprint: np.ndarray, cards: list[Item]) -> tuple[list[Item], list[Item]]:
    """(under, over): clutter to lie under every card and over them. ``footprint``: the frame's
    corners on the table (mm); ``cards``: the scene's cards, so that some things lie across them."""
    lo, hi = footprint.min(0), footprint.max(0)

    def somewhere() -> np.ndarray:
        return np.array([rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1])])

    under = []
    for _ in range(int(rng.choice(UNDER, p=UNDER_P))):
        kind = rng.choice(["flat", "stick", "blob"], p=[0.65, 0.15, 0.2])
        sprite, size = MAKERS[kind](rng)
        under.append(Item(sprite, size, tuple(somewhere()), float(rng.uniform(0, 2 * np.pi)), None, kind,
                          "clutter", lift=float(rng.uniform(0.5, 25))))
    over = []
    for _ in range(int(rng.choice(OVER, p=OVER_P))):
        kind = rng.choice(["stick", "blob", "flat"], p=[0.55, 0.3, 0.15])
        # a flat thing over the cards is small: it hides part of a card, not the table
        sprite, size = flat(rng, most=120) if kind == "flat" else MAKERS[kind](rng)
        at = np.asarray(cards[rng.integers(len(cards))].centre) + rng.normal(0, 30, 2) if cards and rng.random() < 0.7 \
            else somewhere()
        over.append(Item(sprite, size, (float(at[0]), float(at[1])), float(rng.uniform(0, 2 * np.pi)), None, kind,
                         "clutter", lift=float(rng.uniform(3, 30))))
    return under, over
