"""Suit symbols in many designs, for the font-drawn index views (vision/train/index_fonts.py).

Real decks print their suit pips in many shapes: clubs with three round lobes that overlap, touch
or stand apart, on a thin stem or over a wide flared foot (the URW base-35 fonts' club, like many
printed decks), spades with a sharp or blunt point and narrow or broad shoulders, hearts and
diamonds fat or slim. Drawing every pip from one font family taught the reader one club, and it
read the others as spades (issue 39). Two sources here:

* **fonts**: every installed typeface that really has the four suit glyphs (U+2660 ♠, U+2665 ♥,
  U+2666 ♦, U+2663 ♣; and the outlined U+2664 ♤, U+2661 ♡, U+2662 ♢, U+2667 ♧ where present),
  found by scanning FONT_DIRS (``scan``: the font's character map read with fontTools, the glyph
  drawn with PIL and checked to be ink, not the font's missing-glyph box, and to look like its
  suit: FreeSerifBold draws a spade at U+2663 and a club at U+2660). Faces that share one drawing
  (Liberation's nine faces, URW's roman and italic) are grouped into one *design*
  (``font_designs``), so that a family with many faces is not drawn more often. The scan is cached
  on disk (CACHE), keyed by the font files' names, sizes and times.
* **drawn**: parametric shapes (``Drawn``) drawn with OpenCV: clubs of three round lobes
  (overlapping, touching or apart, a clover's or a card's) on a narrow or flared foot, spades with
  varied point, shoulders and foot, hearts and diamonds with varied proportions.

Either filled or outlined (a stroke round the shape). ``pick(rng)`` picks one design for a card
(a deck prints every pip of a card in one design); ``Design.mask(suit, height)`` is its alpha at a
height in pixels; ``suit_glyph(suit, size_px, rng, colour)`` does both and gives RGBA.

HELD_OUT: typeface families whose suit designs training never draws (``pick`` leaves out every
design any of their faces shares), so that bench/bench_clubs.py can measure how the reader reads
suit shapes it never saw.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = [Path("/usr/share/fonts")]
FILLED = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
OUTLINED = {"S": "\u2664", "H": "\u2661", "D": "\u2662", "C": "\u2667"}
SUITS = "SHDC"
# the common four-colour deck: spades black, hearts red, diamonds blue, clubs green (RGB)
FOUR_COLOURS = {"S": (20, 20, 25), "H": (200, 25, 35), "D": (25, 70, 190), "C": (25, 135, 55)}
# typeface families (file-name prefixes) whose suit designs training leaves out: the bench's held-out
# set. P052 (URW Palladio: a club with touching lobes and a flared foot, close to C059's but not
# the same drawing; Z003 shares it), STIX, Go and Cousine (each a design of its own).
HELD_OUT = ("P052", "Z003", "STIX", "Go-", "Cousine")
FONT_SHARE = 0.55        # share of designs ``pick`` takes from fonts (the rest drawn)
OUTLINE_RATE = 0.05      # share of designs drawn as an outline
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "warref" / "suit-fonts.json"
_REF = 40                # side of the square a glyph is compared at
SAME = 0.97              # glyphs that overlap this much (IoU at _REF px) are one drawing
_BIG = 160               # font size glyphs are drawn at before reducing them to the asked height


# ---------------------------------------------------------------------------------------------
# drawn (parametric) designs
# ---------------------------------------------------------------------------------------------
_UNIT = 8                # drawn shapes are laid out in a 40 x 40 box of units, _UNIT px each


def _disc(img: np.ndarray, c, r: float, s: int = 16 * _UNIT) -> None:
    cv2.circle(img, (int(round(c[0] * s)), int(round(c[1] * s))), int(round(r * s)), 255, -1, cv2.LINE_AA, 4)


def _poly(img: np.ndarray, points, s: int = 16 * _UNIT) -> None:
    pts = np.round(np.asarray(points, np.float64) * s).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(img, [pts], 255, cv2.LINE_AA, 4)


def _foot(img: np.ndarray, cx: float, top: float, bottom: float, stem: float, foot: float, flare: float,
          base_curve: float) -> None:
    """A stem from ``top`` to ``bottom`` widening from ``stem`` to ``foot`` wide, its sides bowed in
    (``flare`` > 1: the wide flared foot of many printed clubs and spades; 1: a straight wedge)."""
    t = np.linspace(0, 1, 24)
    half = stem / 2 + (foot - stem) / 2 * t ** flare
    y = top + (bottom - top) * t
    right = np.stack([cx + half, y], 1)
    base = np.linspace(1, -1, 12)
    bottom_edge = np.stack([cx + base * foot / 2, bottom - base_curve * (1 - base ** 2) * (bottom - top)], 1)
    left = np.stack([cx - half[::-1], y[::-1]], 1)
    _poly(img, np.vstack([right, bottom_edge, left]))


def _heart_body(img: np.ndarray, cx: float, cy: float, r: float, spread: float, depth: float,
                flip: bool = False, pinch: float = 0.0) -> None:
    """Two discs of radius r, their centres ``spread`` * r either side of cx on the line cy, joined by
    their tangents down to a point ``depth`` * r below that line (above it with ``flip``: a spade's
    body). ``pinch`` bows the sides in toward the point (a sharper, curved point; < 0: out)."""
    sign = -1.0 if flip else 1.0
    a = spread * r
    tip = np.array([cx, cy + sign * depth * r])
    sides = []
    for side in (1.0, -1.0):
        c = np.array([cx + side * a, cy])
        _disc(img, c, r)
        v = tip - c
        dist = float(np.linalg.norm(v))
        if dist <= r:                                     # the point lies inside the disc
            sides.append([c, tip])
            continue
        ang = np.arctan2(v[1], v[0]) - side * sign * np.arccos(r / dist)
        touch = c + r * np.array([np.cos(ang), np.sin(ang)])
        if side * (touch[0] - cx) < side * a:          # the inner tangent: take the other
            ang = np.arctan2(v[1], v[0]) + side * sign * np.arccos(r / dist)
            touch = c + r * np.array([np.cos(ang), np.sin(ang)])
        t = np.linspace(0, 1, 20)[:, None]
        line = touch + (tip - touch) * t
        line[:, 0] -= side * pinch * r * 0.5 * np.sin(np.pi * t[:, 0])
        sides.append([c, *line])
    right, left = sides
    _poly(img, np.vstack([right, left[::-1]]))


@dataclass(frozen=True)
class Drawn:
    """A parametric suit design; every field is a proportion (``big`` lays them out)."""
    lobe: float = 0.30          # club: lobe radius (share of the club's width scale)
    apart: float = 1.0          # club: centre distance over 2 lobe radii (<1 overlap, 1 touch, >1 apart)
    top_lift: float = 1.0       # club: how far up the top lobe sits, relative to an equilateral layout
    stem: float = 0.10          # club and spade: stem width at its top
    foot: float = 0.45          # club and spade: foot width at the bottom
    flare: float = 2.0          # club and spade: foot sides bowed in (>1) or straight (1)
    foot_h: float = 0.30        # club and spade: foot height, share of the body height
    base_curve: float = 0.0     # club and spade: the foot's bottom edge bowed up
    spread: float = 0.8         # heart and spade: disc centres apart, in radii
    depth: float = 2.5          # heart and spade: point distance from the discs' line, in radii
    pinch: float = 0.2          # heart and spade: sides bowed in toward the point
    diamond_w: float = 0.72     # diamond: width over height
    diamond_bulge: float = 0.0  # diamond: sides bowed out (>0) or in (<0)
    name: str = "drawn"

    @staticmethod
    def random(rng: np.random.Generator) -> Drawn:
        style = rng.random()
        apart = (rng.uniform(0.78, 0.97) if style < 0.45 else rng.uniform(0.97, 1.03) if style < 0.8
                 else rng.uniform(1.03, 1.25))
        flared = rng.random() < 0.6
        return Drawn(lobe=float(rng.uniform(0.26, 0.33)), apart=float(apart), top_lift=float(rng.uniform(0.85, 1.15)),
                     stem=float(rng.uniform(0.05, 0.16)),
                     foot=float(rng.uniform(0.4, 0.75) if flared else rng.uniform(0.12, 0.35)),
                     flare=float(rng.uniform(1.8, 3.5) if flared else rng.uniform(1.0, 1.5)),
                     foot_h=float(rng.uniform(0.1, 0.32)),
                     base_curve=float(rng.uniform(0, 0.25) * (rng.random() < 0.4)),
                     spread=float(rng.uniform(0.6, 0.95)), depth=float(rng.uniform(2.1, 3.0)),
                     pinch=float(rng.uniform(-0.1, 0.5)), diamond_w=float(rng.uniform(0.55, 0.9)),
                     diamond_bulge=float(rng.uniform(-0.15, 0.08)), name="drawn")

    def big(self, suit: str) -> np.ndarray:
        """The shape at a large size (uint8 mask, cropped to its ink)."""
        img = np.zeros((40 * _UNIT, 40 * _UNIT), np.uint8)
        if suit == "C":
            self._club(img)
        elif suit == "S":
            self._spade(img)
        elif suit == "H":
            _heart_body(img, 20, 14, 4.5, self.spread, self.depth, pinch=self.pinch)
        else:
            self._diamond(img)
        return _crop(img)

    def _club(self, img: np.ndarray) -> None:
        r = 4.5 * self.lobe / 0.3                           # lobe radius
        d = 2 * r * self.apart                              # centre distance between the lobes
        cx, cy = 20.0, 18.0
        lx, rx = cx - d / 2, cx + d / 2                     # the two lower lobes
        ty = cy - d * np.sqrt(3) / 2 * self.top_lift        # the top one
        for c in ((lx, cy), (rx, cy), (cx, ty)):
            _disc(img, c, r)
        _poly(img, [(lx, cy), (cx, ty), (rx, cy)])          # the core joining them (lobes apart too)
        width, body = d + 2 * r, cy - ty + 2 * r
        _foot(img, cx, cy, cy + r + max(0.8, self.foot_h * body), self.stem * width,
              max(self.stem, self.foot) * width, self.flare, self.base_curve)

    def _spade(self, img: np.ndarray) -> None:
        r = 4.5
        cx, cy = 20.0, 22.0
        _heart_body(img, cx, cy, r, self.spread, self.depth + 0.3, flip=True, pinch=self.pinch)
        width, body = 2 * (self.spread * r + r), (self.depth + 0.3) * r + r
        _foot(img, cx, cy, cy + r + max(0.8, self.foot_h * body), self.stem * width,
              max(self.stem, self.foot) * width * 0.85, self.flare, self.base_curve)

    def _diamond(self, img: np.ndarray) -> None:
        h = 30.0
        w = h * self.diamond_w
        cx, cy = 20.0, 20.0
        t = np.linspace(0, 1, 20)
        pts = []
        corners = [(cx, cy - h / 2), (cx + w / 2, cy), (cx, cy + h / 2), (cx - w / 2, cy)]
        for i in range(4):
            a, b = np.array(corners[i]), np.array(corners[(i + 1) % 4])
            normal = np.array([b[1] - a[1], a[0] - b[0]])
            normal /= np.linalg.norm(normal)
            for s in t[:-1]:
                pts.append(a + (b - a) * s + normal * self.diamond_bulge * w * np.sin(np.pi * s) * 0.5)
        _poly(img, pts)


def _crop(img: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(img > 24)
    if not len(ys):
        return np.zeros((1, 1), np.uint8)
    return img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _fit(mask: np.ndarray, height: int) -> np.ndarray:
    """A cropped uint8 mask reduced (or enlarged) to ``height`` rows, its aspect kept; float alpha."""
    h, w = mask.shape
    height = max(1, int(round(height)))
    width = max(1, int(round(w * height / h)))
    interp = cv2.INTER_AREA if height < h else cv2.INTER_CUBIC
    return np.clip(cv2.resize(mask, (width, height), interpolation=interp).astype(np.float32) / 255, 0, 1)


def _outline(mask: np.ndarray, width: float) -> np.ndarray:
    """A stroke round a (large) shape: the shape less its inside ``width`` of its height in."""
    k = max(3, int(round(mask.shape[0] * width)) | 1)
    pad = cv2.copyMakeBorder(mask, k, k, k, k, cv2.BORDER_CONSTANT, 0)
    inner = cv2.erode(pad, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return _crop(cv2.subtract(pad, inner))


# ---------------------------------------------------------------------------------------------
# font designs
# ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _pil_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def glyph_big(path: str | Path, char: str, size: int = 200) -> np.ndarray:
    """``char`` drawn in the font at ``size`` (uint8 mask cropped to its ink; 1x1 if none)."""
    font = _pil_font(str(path), size)
    box = font.getbbox(char)
    w, h = box[2] - box[0], box[3] - box[1]
    if w <= 0 or h <= 0:
        return np.zeros((1, 1), np.uint8)
    img = Image.new("L", (w + 8, h + 8), 0)
    ImageDraw.Draw(img).text((4 - box[0], 4 - box[1]), char, font=font, fill=255)
    return _crop(np.asarray(img))


def _filled(mask: np.ndarray) -> np.ndarray:
    """A mask with its holes filled (an outlined glyph as its solid shape)."""
    m = (mask > 127).astype(np.uint8)
    pad = cv2.copyMakeBorder(m, 1, 1, 1, 1, cv2.BORDER_CONSTANT, 0)
    flood = pad.copy()
    cv2.floodFill(flood, np.zeros((pad.shape[0] + 2, pad.shape[1] + 2), np.uint8), (0, 0), 1)
    return ((pad | (1 - flood))[1:-1, 1:-1] * 255).astype(np.uint8)


def _norm(mask: np.ndarray) -> np.ndarray:
    return cv2.resize(_filled(mask), (_REF, _REF), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


@lru_cache(maxsize=1)
def _references() -> dict[str, list[np.ndarray]]:
    """Each suit as a few drawn designs (normalised): what a glyph is compared with."""
    designs = [Drawn(), Drawn(apart=0.85, foot=0.3, flare=1.2, spread=0.7, depth=1.8, diamond_w=0.65),
               Drawn(apart=1.1, lobe=0.27, foot=0.6, flare=3.0, spread=0.9, depth=2.4, pinch=0.4, diamond_w=0.8)]
    return {s: [_norm(d.big(s)) for d in designs] for s in SUITS}


def tip_width(mask: np.ndarray, at: float = 0.06) -> float:
    """The shape's width ``at`` of its height below its top, over its height: a club's top lobe is
    round (0.27-0.36 in every installed face), a spade's top a point (0.05-0.15)."""
    f = _filled(mask) > 127
    ys, xs = np.nonzero(f)
    if not len(ys):
        return 0.0
    f = f[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    cols = np.nonzero(f[int(round(at * (f.shape[0] - 1)))])[0]
    return (cols.max() - cols.min() + 1) / f.shape[0] if len(cols) else 0.0


TIP = 0.2          # tip_width between a spade's and a club's


def suit_scores(mask: np.ndarray) -> dict[str, float]:
    """How much a glyph looks like each suit: its best overlap (IoU, filled, stretched square) with
    the drawn references."""
    g = _norm(mask)
    out = {}
    for s, refs in _references().items():
        out[s] = max(float(np.minimum(g, r).sum() / max(1e-6, np.maximum(g, r).sum())) for r in refs)
    return out


def looks_right(masks: dict[str, np.ndarray]) -> tuple[bool, str]:
    """Whether four glyphs (suit letter -> mask) are their suits. Spades and clubs by their tops
    (``tip_width``: a point or a round lobe); each of the four must also overlap its own suit's
    references (``suit_scores``) better than the other colour's two suits' (a heart is no diamond).
    FreeSerifBold fails: it draws a spade at U+2663 and a club at U+2660."""
    for s in "SC":
        tip = tip_width(masks[s])
        if (tip > TIP) != (s == "C"):
            return False, f"{FILLED[s]} has a {'round' if tip > TIP else 'pointed'} top ({tip:.2f})"
    for s in SUITS:
        sc = suit_scores(masks[s])
        rivals = "HD" if s in "HD" else "SC"
        if max(rivals, key=sc.get) != s:
            other = max(rivals, key=sc.get)
            return False, f"{FILLED[s]} looks like {FILLED[other]} ({sc[other]:.2f} vs {sc[s]:.2f})"
        if max(sc, key=sc.get) in ("SC" if s in "HD" else "HD"):
            return False, f"{FILLED[s]} looks like {FILLED[max(sc, key=sc.get)]}"
    return True, ""


def _fingerprint(files: list[Path]) -> str:
    h = hashlib.sha1()
    for f in files:
        st = f.stat()
        h.update(f"{f}|{st.st_size}|{int(st.st_mtime)}\n".encode())
    h.update(f"v2 {_REF} {TIP}".encode())
    return h.hexdigest()


def _font_files() -> list[Path]:
    files = []
    for folder in FONT_DIRS:
        if folder.is_dir():
            files += [p for p in folder.rglob("*") if p.suffix.lower() in (".ttf", ".otf")]
    return sorted(files)


def _cmap(path: Path) -> set[int]:
    try:
        from fontTools.ttLib import TTFont     # optional (about 25 ms): PIL answers below without it
    except ImportError:                      # no fontTools: PIL's glyph index (0 = .notdef)
        try:
            font = ImageFont.truetype(str(path), 40)
        except OSError:
            return set()
        missing = font.getmask("\U0010fffd").getbbox()
        return {ord(c) for c in list(FILLED.values()) + list(OUTLINED.values())
                if font.getmask(c).getbbox() and font.getmask(c).getbbox() != missing}
    try:
        with TTFont(str(path), lazy=True, fontNumber=0) as f:
            return set((f.getBestCmap() or {}).keys())
    except Exception:  # noqa: BLE001 - a file fontTools cannot read is no suit font
        return set()


def _check(path: Path) -> dict | None:
    """A face's suit glyphs if it really has all four filled ones that look like their suits."""
    cmap = _cmap(path)
    if not all(ord(c) in cmap for c in FILLED.values()):
        return None
    try:
        masks = {s: glyph_big(path, FILLED[s], 120) for s in SUITS}
        notdef = glyph_big(path, "\U0010fffd", 120)
    except OSError:
        return {"path": str(path), "ok": False, "why": "PIL cannot draw it"}
    for s, m in masks.items():
        if m.shape == (1, 1) or (m > 127).sum() < 50 or (m.shape == notdef.shape and (m == notdef).all()):
            return {"path": str(path), "ok": False, "why": f"{FILLED[s]} draws no ink or the missing-glyph box"}
    ok, why = looks_right(masks)
    outlined = all(ord(c) in cmap for c in OUTLINED.values())
    if outlined:
        omasks = {s: glyph_big(path, OUTLINED[s], 120) for s in SUITS}
        outlined = all(m.shape != (1, 1) for m in omasks.values()) and looks_right(omasks)[0]
        # an outline is one: its filled shape has clearly more ink than its stroke
        outlined = outlined and all((_filled(m) > 127).sum() > 1.3 * (m > 127).sum() for m in omasks.values())
    sig = np.concatenate([(_norm(masks[s]) > 0.5).ravel() for s in SUITS])   # one design's mark
    return {"path": str(path), "ok": ok, "why": why, "outlined": bool(outlined),
            "signature": np.packbits(sig).tobytes().hex()}


@lru_cache(maxsize=1)
def scan() -> list[dict]:
    """Every installed face with the four suit glyphs: {"path", "ok", "why", "outlined",
    "signature"} (``ok`` False: rejected, ``why`` says why), cached on disk (CACHE)."""
    files = _font_files()
    key = _fingerprint(files)
    try:
        cached = json.loads(CACHE.read_text())
        if cached.get("key") == key:
            return cached["faces"]
    except (OSError, ValueError, KeyError):
        pass
    faces = [r for r in map(_check, files) if r]
    try:
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        tmp = CACHE.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "faces": faces}))
        tmp.replace(CACHE)
    except OSError:
        pass
    return faces


def _slanted(path: str | Path) -> bool:
    stem = Path(path).stem
    return any(w in stem for w in ("Italic", "Oblique", "Ita", "Obl", "_RI", "_RZI", "_RBI"))


def held_out_face(path: str | Path) -> bool:
    return Path(path).stem.startswith(HELD_OUT)


@dataclass(frozen=True)
class FontDesign:
    """One suit drawing shared by one or more faces (``faces``: their paths, the first drawn)."""
    faces: tuple[str, ...]
    outlined_glyphs: bool = False
    held_out: bool = False

    @property
    def path(self) -> str:
        return self.faces[0]

    @property
    def name(self) -> str:
        return Path(self.faces[0]).stem


@lru_cache(maxsize=1)
def font_designs() -> list[FontDesign]:
    """The distinct suit drawings of the installed faces that passed ``scan``: faces whose glyphs
    overlap (IoU at _REF px, each suit) by SAME or more are one design (DejaVu Sans and its bold,
    condensed and oblique; C059 and Nimbus Roman). A design any held-out face shares is held out."""
    groups: list[tuple[np.ndarray, list[dict]]] = []
    for face in (f for f in scan() if f["ok"]):
        sig = np.unpackbits(np.frombuffer(bytes.fromhex(face["signature"]), np.uint8))[:4 * _REF * _REF]
        sig = sig.astype(bool).reshape(4, -1)
        for ref, members in groups:
            if ((ref & sig).sum(1) / np.maximum(1, (ref | sig).sum(1))).min() >= SAME:
                members.append(face)
                break
        else:
            groups.append((sig, [face]))
    out = []
    for _, members in groups:
        members.sort(key=lambda f: (held_out_face(f["path"]), _slanted(f["path"]), Path(f["path"]).stem))
        out.append(FontDesign(tuple(f["path"] for f in members), all(f["outlined"] for f in members),
                              any(held_out_face(f["path"]) for f in members)))
    return sorted(out, key=lambda d: d.name)


# ---------------------------------------------------------------------------------------------
# one design for a card
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Design:
    """How a card's pips are drawn: a font's glyphs (``font``) or a drawn shape (``drawn``), filled
    or outlined (``stroke``: the stroke's width as a share of the height; 0 filled)."""
    font: FontDesign | None = None
    drawn: Drawn | None = None
    stroke: float = 0.0
    face: str | None = None           # which of the font design's faces (default its first)

    @property
    def name(self) -> str:
        base = Path(self.face).stem if self.face else self.font.name if self.font else "drawn"
        return base + (" outlined" if self.stroke else "")

    def big(self, suit: str) -> np.ndarray:
        """The pip at a large size (uint8 mask cropped to its ink)."""
        return _design_big(self, suit)

    def _big(self, suit: str) -> np.ndarray:
        if self.font is not None:
            path = self.face or self.font.path
            if self.stroke and self.font.outlined_glyphs:
                return _big_font(path, OUTLINED[suit])
            m = _big_font(path, FILLED[suit])
        else:
            m = self.drawn.big(suit)
        return _outline(m, self.stroke) if self.stroke else m

    def mask(self, suit: str, height: float) -> np.ndarray:
        """The pip as float alpha (0..1), ``height`` pixels tall (its ink), its width as drawn."""
        return _fit(self.big(suit), height)


@lru_cache(maxsize=64)
def _design_big(design: Design, suit: str) -> np.ndarray:
    return design._big(suit)


@lru_cache(maxsize=512)
def _big_font(path: str, char: str) -> np.ndarray:
    return glyph_big(path, char, _BIG)


def training_font_designs() -> list[FontDesign]:
    return [d for d in font_designs() if not d.held_out]


def pick(rng: np.random.Generator, fonts: bool | None = None, held_out: bool = False) -> Design:
    """A design for one card: a font design (FONT_SHARE of the time, each design alike; never a
    held-out one unless ``held_out``) or a drawn one; OUTLINE_RATE of them outlined. ``fonts``
    forces the source (True: a font, False: drawn)."""
    designs = font_designs() if held_out else training_font_designs()
    use_font = (rng.random() < FONT_SHARE) if fonts is None else fonts
    stroke = float(rng.uniform(0.07, 0.13)) if rng.random() < OUTLINE_RATE else 0.0
    if use_font and designs:
        d = designs[int(rng.integers(len(designs)))]
        return Design(font=d, face=d.faces[int(rng.integers(len(d.faces)))], stroke=stroke)
    return Design(drawn=Drawn.random(rng), stroke=stroke)


def suit_glyph(suit: str, size_px: float, rng: np.random.Generator, colour=None,
               design: Design | None = None) -> np.ndarray:
    """One suit symbol ``size_px`` tall as RGBA (uint8) in a design picked at random (``pick``)
    unless given; ``colour`` RGB, by default black for spades and clubs and red for hearts and
    diamonds."""
    design = design or pick(rng)
    alpha = design.mask(suit, size_px)
    if colour is None:
        colour = (200, 25, 35) if suit in "HD" else (15, 15, 20)
    out = np.zeros(alpha.shape + (4,), np.uint8)
    out[..., :3] = colour
    out[..., 3] = np.round(alpha * 255).astype(np.uint8)
    return out
