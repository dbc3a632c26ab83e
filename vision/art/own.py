"""warref's own card art for Woolly Warfare and Namikopy, and card backs for every deck.

Everything is drawn with Pillow from shapes and the Debian fonts (DejaVu, Liberation, URW base35):
no image files, no randomness. Cards are drawn at SS times the final size and reduced, which
anti-aliases every edge. Each face comes in several styles (fonts, index sizes, frames, paper and
saturation differ) because the printed deck a family owns will not look exactly like ours.

Like real cards, the corner index (what the reader classifies from a small crop) is drawn in the
top-left corner and copied rotated by 180 degrees into the bottom-right one, so a card reads the
same either way up; 6 and 9 are underlined.

    python -m vision.art.own OUT.png     # contact sheet of every face and back, to look at
"""
from __future__ import annotations

import colorsys
import math
import sys
from dataclasses import dataclass
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from referee.deck import load_deck
from .base import CARD_H, CARD_W, CORNER_RADIUS, CardImage, rounded_outline

SS = 2                                   # supersampling factor
W, H, R = CARD_W * SS, CARD_H * SS, CORNER_RADIUS * SS
TILE = (int(0.40 * W), int(0.30 * H))    # the corner region copied, rotated, to the other corner

DEJAVU = "/usr/share/fonts/truetype/dejavu/"
LIBER = "/usr/share/fonts/truetype/liberation/"
URW = "/usr/share/fonts/opentype/urw-base35/"

RGB = tuple[int, int, int]
DARK: RGB = (34, 30, 28)
WHITE: RGB = (255, 255, 255)


def hexrgb(s: str) -> RGB:
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


WOOLLY_COLOURS = {c: hexrgb(h) for c, h in
                  {"R": "#d63a2f", "O": "#f08a24", "Y": "#e8c21a", "G": "#3f9b3c", "B": "#2f6fc1"}.items()}
ACTION_COLOURS = {"STEAL": hexrgb("#7a3ea1"), "REVEAL": hexrgb("#138a8a"), "WAR": hexrgb("#26221f")}
WAR_RED = hexrgb("#d0242b")
NAMIKOPY_GROUPS = [hexrgb(h) for h in ("#2a7fb8", "#2e9a62", "#e08a1e", "#c8324a")]  # 1-3 ... 10-12
BIRD_COLOURS = {"MALLARD": hexrgb("#1f7a45"), "FLAMINGO": hexrgb("#e0608f"), "TURKEY": hexrgb("#8a5a2b")}


@dataclass(frozen=True)
class Style:
    name: str
    index_font: str
    big_font: str
    word_font: str
    index_h: float      # corner number height, fraction of the card height
    frame: str          # band | oval | line | tabs
    paper: RGB
    sat: float          # colour saturation factor
    light: float        # colour lightness shift
    edge: RGB           # the card's outline
    gloves: bool        # the alpaca wears a boxing glove
    flip: bool = False  # the alpaca faces left


STYLES = (
    Style("warref-classic", DEJAVU + "DejaVuSans-Bold.ttf", DEJAVU + "DejaVuSans-Bold.ttf",
          DEJAVU + "DejaVuSansCondensed-Bold.ttf", 0.13, "band", (251, 246, 233), 1.0, 0.0, (70, 66, 62), True),
    Style("warref-bold", LIBER + "LiberationSans-Bold.ttf", URW + "NimbusSans-Bold.otf",
          LIBER + "LiberationSans-Bold.ttf", 0.15, "oval", (255, 255, 255), 1.12, -0.03, (40, 40, 40), False),
    Style("warref-print", URW + "C059-Bold.otf", URW + "C059-Bold.otf",
          DEJAVU + "DejaVuSerif-Bold.ttf", 0.125, "line", (255, 253, 247), 0.82, 0.03, (125, 125, 125), True),
    Style("warref-narrow", LIBER + "LiberationSansNarrow-Bold.ttf", DEJAVU + "DejaVuSansCondensed-Bold.ttf",
          URW + "URWGothic-Demi.otf", 0.14, "tabs", (244, 241, 232), 0.92, 0.0, (90, 90, 90), False),
    Style("warref-serif", DEJAVU + "DejaVuSerif-Bold.ttf", URW + "P052-Bold.otf",
          URW + "URWBookman-Demi.otf", 0.135, "tabs", (255, 255, 255), 1.05, -0.02, (60, 60, 60), True, True),
    Style("warref-gothic", URW + "URWGothic-Demi.otf", URW + "NimbusSans-Bold.otf",
          URW + "NimbusSansNarrow-Bold.otf", 0.145, "band", (250, 247, 238), 0.9, 0.04, (100, 96, 90), False, True),
)


# ---------------------------------------------------------------- colours and text

def shade(rgb: RGB, sat: float = 1.0, light: float = 0.0) -> RGB:
    h, l, s = colorsys.rgb_to_hls(*(c / 255 for c in rgb))
    r, g, b = colorsys.hls_to_rgb(h, min(1.0, max(0.0, l + light)), min(1.0, s * sat))
    return (round(r * 255), round(g * 255), round(b * 255))


def tune(rgb: RGB, st: Style) -> RGB:
    return shade(rgb, st.sat, st.light)


def luma(rgb: RGB) -> float:
    return (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) / 255


def ink(rgb: RGB) -> RGB:
    """The colour darkened until it reads on light paper."""
    while luma(rgb) > 0.55:
        rgb = tuple(int(c * 0.88) for c in rgb)
    return rgb


def on(rgb: RGB) -> RGB:
    """Text colour for text printed on a field of colour rgb."""
    return DARK if luma(rgb) > 0.62 else WHITE


@cache
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@cache
def text_masks(text: str, font: str, height: int, width: int, stroke: int, squeeze: float = 0.74):
    """Masks (fill, outline or None) of ``text`` whose ink fits height x width pixels: the ink is
    ``height`` tall, squeezed sideways (to ``squeeze`` at most) and then shrunk if too wide."""
    f = _font(font, 256)
    l, t, r, b = f.getbbox(text)
    pad = 64
    size = (r - l + 2 * pad, b - t + 2 * pad)
    fill = Image.new("L", size)
    ImageDraw.Draw(fill).text((pad - l, pad - t), text, font=f, fill=255)
    ink_box = fill.getbbox()
    ink_h, ink_w = ink_box[3] - ink_box[1], ink_box[2] - ink_box[0]
    h = height
    if ink_w * h / ink_h * squeeze > width:          # too wide even squeezed: shrink
        h = max(1, int(width / squeeze * ink_h / ink_w))
    w = min(width, round(ink_w * h / ink_h))
    scale = h / ink_h
    outline = None
    if stroke:
        s256 = max(1, round(stroke / scale))
        outline = Image.new("L", size)
        ImageDraw.Draw(outline).text((pad - l, pad - t), text, font=f, fill=255,
                                     stroke_width=s256, stroke_fill=255)
        box = outline.getbbox()
        grow_x, grow_y = (w / ink_w), scale
        out_size = (round((box[2] - box[0]) * grow_x), round((box[3] - box[1]) * grow_y))
        outline = outline.crop(box).resize(out_size, Image.LANCZOS)
        fill = fill.crop(box).resize(out_size, Image.LANCZOS)
        return fill, outline, (round((ink_box[0] - box[0]) * grow_x), round((ink_box[1] - box[1]) * grow_y), w, h)
    return fill.crop(ink_box).resize((w, h), Image.LANCZOS), None, (0, 0, w, h)


def put_text(img: Image.Image, text: str, font: str, box, fill: RGB, stroke: int = 0,
             stroke_fill: RGB = DARK, align: str = "center", valign: str = "center", squeeze: float = 0.74):
    """Draw text whose ink fills ``box`` (x0, y0, x1, y1) as much as it can; returns its ink box."""
    x0, y0, x1, y1 = (int(v) for v in box)
    fm, om, (ox, oy, w, h) = text_masks(text, font, y1 - y0, x1 - x0, stroke, squeeze)
    x = {"left": x0, "center": (x0 + x1 - w) // 2, "right": x1 - w}[align]
    y = {"top": y0, "center": (y0 + y1 - h) // 2, "bottom": y1 - h}[valign]
    if om is not None:
        img.paste(stroke_fill, (x - ox, y - oy), om)
    img.paste(fill, (x - ox, y - oy), fm)
    return (x, y, x + w, y + h)


def underline(d: ImageDraw.ImageDraw, ink_box, colour: RGB, outline: RGB | None = None):
    """The bar under a 6 or a 9."""
    x0, y0, x1, y1 = ink_box
    h, cx, w = y1 - y0, (x0 + x1) / 2, (x1 - x0) * 0.8
    top = y1 + 0.07 * h
    bar = (cx - w / 2, top, cx + w / 2, top + 0.09 * h)
    d.rounded_rectangle(bar, radius=0.04 * h, fill=colour, outline=outline,
                        width=max(1, int(0.025 * h)) if outline else 0)


# ---------------------------------------------------------------- figures from shapes

def rect(x0, y0, x1, y1, fill):
    return ("p", [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill)


def circ(cx, cy, r, fill):
    return ("e", (cx - r, cy - r, cx + r, cy + r), fill)


def oval_pts(cx, cy, rx, ry, angle=0.0, n=28):
    ca, sa = math.cos(angle), math.sin(angle)
    return [(cx + rx * math.cos(t) * ca - ry * math.sin(t) * sa, cy + rx * math.cos(t) * sa + ry * math.sin(t) * ca)
            for t in (2 * math.pi * i / n for i in range(n))]


def figure(d: ImageDraw.ImageDraw, box, body, details=(), edge: RGB = DARK, ow: float = 0.016, flip=False):
    """Draw a figure given in unit coordinates into ``box`` (kept square): the ``body`` parts get one
    outline around their union, the ``details`` are drawn on top. Parts: ("e", box, fill),
    ("p", points, fill), ("l", points, fill, width)."""
    x0, y0, x1, y1 = box
    s = min(x1 - x0, y1 - y0)
    ox, oy = (x0 + x1 - s) / 2, (y0 + y1 - s) / 2

    def pt(u, v):
        return (ox + (1 - u if flip else u) * s, oy + v * s)

    def draw(part, grow, colour):
        kind, geo, fill = part[:3]
        c = colour or fill
        if kind == "e":
            (ax, ay), (bx, by) = pt(geo[0], geo[1]), pt(geo[2], geo[3])
            d.ellipse((min(ax, bx) - grow, min(ay, by) - grow, max(ax, bx) + grow, max(ay, by) + grow), fill=c)
        elif kind == "p":
            pts = [pt(u, v) for u, v in geo]
            d.polygon(pts, fill=c)
            if grow:
                d.line(pts + [pts[0]], fill=c, width=round(2 * grow), joint="curve")
                for x, y in pts:
                    d.ellipse((x - grow, y - grow, x + grow, y + grow), fill=c)
        else:
            pts, r = [pt(u, v) for u, v in geo], part[3] * s / 2 + grow
            d.line(pts, fill=c, width=round(2 * r), joint="curve")
            for x, y in (pts[0], pts[-1]):
                d.ellipse((x - r, y - r, x + r, y + r), fill=c)

    for part in body:
        draw(part, ow * s, edge)
    for part in (*body, *details):
        draw(part, 0, None)


WOOL, WOOL_SHADE, HOOF = (247, 240, 226), (222, 208, 186), (88, 66, 50)
BROWN_EDGE = (58, 40, 30)


def alpaca(scarf: RGB, gloves: bool):
    """An alpaca facing right in the unit square: (body, details)."""
    legs = [rect(0.17, 0.60, 0.25, 0.96, WOOL_SHADE), rect(0.57, 0.62, 0.65, 0.96, WOOL_SHADE),
            rect(0.28, 0.62, 0.36, 0.97, WOOL)]
    arm = [("l", [(0.68, 0.62), (0.80, 0.57), (0.86, 0.48)], WOOL, 0.085),
           circ(0.88, 0.45, 0.075, (200, 36, 40)), rect(0.81, 0.49, 0.90, 0.55, WHITE)] if gloves \
        else [rect(0.67, 0.61, 0.75, 0.97, WOOL)]
    puffs = [circ(0.20 + 0.1 * i, 0.42 - 0.015 * (i % 2), 0.065, WOOL) for i in range(5)]
    body = [circ(0.10, 0.48, 0.065, WOOL), *legs, *arm[:1], ("e", (0.10, 0.36, 0.78, 0.72), WOOL), *puffs,
            ("p", [(0.58, 0.52), (0.76, 0.50), (0.80, 0.17), (0.65, 0.17)], WOOL),
            ("p", [(0.64, 0.11), (0.635, -0.04), (0.69, 0.08)], WOOL),
            ("p", [(0.72, 0.08), (0.76, -0.05), (0.78, 0.09)], WOOL),
            ("e", (0.62, 0.04, 0.84, 0.24), WOOL), ("e", (0.75, 0.10, 0.95, 0.25), WOOL_SHADE),
            circ(0.67, 0.06, 0.035, WOOL), circ(0.72, 0.045, 0.035, WOOL), *arm[1:]]
    hooves = [rect(x, 0.92, x + 0.08, 0.97, HOOF) for x in (0.17, 0.28, 0.57) + (() if gloves else (0.67,))]
    details = [*hooves, circ(0.785, 0.125, 0.018, DARK), circ(0.925, 0.165, 0.012, DARK),
               ("l", [(0.86, 0.215), (0.90, 0.225), (0.935, 0.21)], DARK, 0.012),
               ("p", [(0.59, 0.40), (0.79, 0.38), (0.79, 0.45), (0.59, 0.47)], scarf),
               ("p", [(0.62, 0.45), (0.69, 0.45), (0.66, 0.60), (0.59, 0.58)], scarf)]
    return body, details


def loot_bag(band: RGB):
    tan, dark_tan = (206, 166, 104), (160, 118, 62)
    body = [("e", (0.12, 0.34, 0.88, 1.0), tan), ("p", [(0.36, 0.20), (0.64, 0.20), (0.62, 0.40), (0.38, 0.40)], tan),
            ("p", [(0.24, 0.02), (0.50, 0.12), (0.76, 0.02), (0.66, 0.24), (0.34, 0.24)], dark_tan),
            ("e", (0.31, 0.23, 0.69, 0.33), band)]
    details = [("l", [(0.22, 0.62), (0.26, 0.80)], dark_tan, 0.025), ("l", [(0.78, 0.62), (0.74, 0.80)], dark_tan, 0.025)]
    return body, details


def eye(iris: RGB):
    n = 24
    upper = [(0.05 + 0.9 * i / n, 0.55 - 0.33 * math.sin(math.pi * i / n)) for i in range(n + 1)]
    lower = [(0.05 + 0.9 * i / n, 0.55 + 0.27 * math.sin(math.pi * i / n)) for i in range(n, -1, -1)]
    lashes = [("l", [(0.5 + 0.45 * math.cos(a) * 0.72, 0.55 - 0.33 * math.sin(a) * 1.0),
                     (0.5 + 0.45 * math.cos(a) * 0.95, 0.55 - 0.33 * math.sin(a) * 1.45)], DARK, 0.035)
              for a in (math.pi * k / 8 for k in range(2, 7))]
    body = [*lashes, ("p", upper + lower, WHITE)]
    details = [circ(0.5, 0.55, 0.2, iris), circ(0.5, 0.55, 0.09, DARK), circ(0.56, 0.49, 0.04, WHITE)]
    return body, details


def burst(outer: RGB, inner: RGB, spikes: int = 14):
    def star(r_out, r_in, twist):
        return [(0.5 + (r_out if i % 2 == 0 else r_in) * (1 - 0.12 * (i % 4 == 0)) * math.cos(a),
                 0.5 + (r_out if i % 2 == 0 else r_in) * (1 - 0.12 * (i % 4 == 0)) * math.sin(a))
                for i, a in ((i, twist + math.pi * i / spikes) for i in range(2 * spikes))]
    return [("p", star(0.49, 0.33, 0.1), outer)], [("p", star(0.36, 0.24, 0.3), inner)]


def mallard():
    green, brown, chest, grey = (31, 122, 69), (110, 88, 68), (122, 59, 34), (170, 160, 146)
    body = [("p", [(0.80, 0.52), (1.0, 0.44), (0.96, 0.66)], (60, 55, 50)), ("e", (0.18, 0.44, 0.96, 0.86), grey),
            ("p", [(0.14, 0.52), (0.30, 0.52), (0.33, 0.28), (0.16, 0.28)], green),
            ("e", (0.08, 0.10, 0.38, 0.38), green),
            ("p", [(0.11, 0.24), (-0.02, 0.27), (-0.03, 0.33), (0.12, 0.33)], (236, 190, 40))]
    details = [("e", (0.14, 0.46, 0.48, 0.84), chest), ("e", (0.42, 0.50, 0.90, 0.74), brown),
               rect(0.62, 0.60, 0.80, 0.67, (58, 80, 180)), ("e", (0.15, 0.44, 0.33, 0.50), WHITE),
               circ(0.22, 0.20, 0.025, DARK),
               ("l", [(0.05, 0.93), (0.2, 0.89), (0.35, 0.93), (0.5, 0.89), (0.65, 0.93), (0.8, 0.89), (0.95, 0.93)],
                (70, 140, 200), 0.025)]
    return body, details


def flamingo():
    pink, deep, leg = (244, 150, 180), (226, 100, 140), (214, 90, 126)
    neck = [(0.36, 0.42), (0.24, 0.36), (0.20, 0.24), (0.26, 0.12), (0.36, 0.08)]
    body = [("l", [(0.52, 0.55), (0.52, 0.99)], leg, 0.03), ("l", [(0.58, 0.55), (0.70, 0.74), (0.53, 0.76)], leg, 0.03),
            ("p", [(0.80, 0.36), (0.97, 0.30), (0.90, 0.46)], deep), ("e", (0.30, 0.30, 0.88, 0.58), pink),
            ("l", neck, pink, 0.07), ("e", (0.31, 0.02, 0.45, 0.13), pink),
            ("p", [(0.42, 0.04), (0.53, 0.07), (0.56, 0.12), (0.54, 0.19), (0.49, 0.12), (0.42, 0.11)], (250, 232, 226))]
    details = [("e", (0.46, 0.34, 0.86, 0.52), deep), ("p", [(0.53, 0.10), (0.56, 0.12), (0.54, 0.19), (0.51, 0.13)], DARK),
               circ(0.39, 0.06, 0.014, DARK)]
    return body, details


def turkey():
    feathers = [("p", oval_pts(0.62 + 0.30 * math.cos(a), 0.55 - 0.36 * math.sin(a), 0.09, 0.24, math.pi / 2 - a),
                 (138, 90, 43) if i % 2 else (196, 138, 74)) for i, a in enumerate(math.pi * (0.15 + 0.7 * k / 8)
                                                                            for k in range(9))]
    tips = [("p", oval_pts(0.62 + 0.46 * math.cos(a), 0.55 - 0.55 * math.sin(a), 0.045, 0.07, math.pi / 2 - a),
             (240, 230, 210)) for a in (math.pi * (0.15 + 0.7 * k / 8) for k in range(9))]
    body = [*feathers, ("l", [(0.48, 0.80), (0.45, 0.99)], (226, 140, 40), 0.03),
            ("l", [(0.62, 0.80), (0.64, 0.99)], (226, 140, 40), 0.03), ("e", (0.30, 0.42, 0.86, 0.88), (84, 54, 32)),
            ("p", [(0.30, 0.56), (0.42, 0.56), (0.36, 0.30), (0.26, 0.30)], (150, 176, 200)),
            ("e", (0.18, 0.18, 0.38, 0.38), (150, 176, 200)),
            ("p", [(0.19, 0.26), (0.10, 0.29), (0.19, 0.32)], (240, 190, 40)),
            ("e", (0.17, 0.30, 0.27, 0.48), (214, 40, 40))]
    details = [*tips, ("e", (0.50, 0.50, 0.82, 0.76), (120, 80, 48)), circ(0.26, 0.25, 0.02, DARK),
               ("l", [(0.22, 0.22), (0.18, 0.33)], (214, 40, 40), 0.03)]
    return body, details


BIRDS = {"MALLARD": mallard, "FLAMINGO": flamingo, "TURKEY": turkey}


# ---------------------------------------------------------------- card canvas, frames, indices

@cache
def card_mask() -> Image.Image:
    mask = Image.new("L", (W, H))
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, W - 1, H - 1), radius=R, fill=255)
    return mask


def finish(img: Image.Image, edge: RGB) -> np.ndarray:
    """Outline the card, cut its rounded corners and reduce it to CARD_H x CARD_W RGBA."""
    ImageDraw.Draw(img).rounded_rectangle((0, 0, W - 1, H - 1), radius=R, outline=edge, width=3)
    img = Image.composite(img, Image.new("RGB", (W, H), edge), card_mask())
    alpha = np.round(rounded_outline() * 255).astype(np.uint8)     # the silhouette all decks share
    arr = np.dstack([np.asarray(img.reduce(SS)), alpha])
    arr.flags.writeable = False
    return arr


def mirror_corner(img: Image.Image):
    """Copy the top-left corner, turned 180 degrees, into the bottom-right one."""
    img.paste(img.crop((0, 0, *TILE)).rotate(180), (W - TILE[0], H - TILE[1]))


OVAL = (0.15 * W, 0.19 * H, 0.85 * W, 0.81 * H)    # the bold style's panel


def base(st: Style, colour: RGB) -> Image.Image:
    """Paper and the style's frame in the card's colour (every frame is 180-degree symmetric)."""
    img = Image.new("RGB", (W, H), st.paper)
    d = ImageDraw.Draw(img)
    m = 0.035 * W
    if st.frame == "band":
        d.rounded_rectangle((m, m, W - 1 - m, H - 1 - m), radius=R * 0.7, outline=colour, width=int(0.035 * W))
    elif st.frame == "oval":
        d.rectangle((0, 0, W, H), fill=colour)
        d.ellipse(OVAL, fill=st.paper, outline=DARK, width=int(0.008 * W))
    elif st.frame == "line":
        d.rounded_rectangle((m, m, W - 1 - m, H - 1 - m), radius=R * 0.5, outline=colour, width=int(0.009 * W))
        m2 = m + 0.018 * W
        d.rounded_rectangle((m2, m2, W - 1 - m2, H - 1 - m2), radius=R * 0.3, outline=colour, width=int(0.004 * W))
    else:  # tabs: a thin frame; the coloured tabs come with the index
        d.rounded_rectangle((m, m, W - 1 - m, H - 1 - m), radius=R * 0.5, outline=colour, width=int(0.006 * W))
    return img


def cbox(x0: float, y0: float, x1: float, y1: float):
    """A box given in fractions of the card's width and height, in canvas pixels."""
    return (x0 * W, y0 * H, x1 * W, y1 * H)


def index_origin(st: Style) -> tuple[int, int]:
    inset = 0.095 * W if st.frame == "band" else 0.065 * W
    return int(inset), int(inset * 0.95)


def corner_text(img: Image.Image, st: Style, colour: RGB, text: str, height: float, underlined: bool = False,
                look: str | None = None, fill: RGB | None = None) -> tuple[int, int, int, int]:
    """The index text in the top-left corner, drawn the style's way (``look``: the frame it sits on,
    if not the style's); returns its ink box."""
    look = look or st.frame
    x, y = index_origin(st)
    box = (x, y, TILE[0] - 0.04 * W, y + height * H)
    font = st.index_font
    d = ImageDraw.Draw(img)
    if look == "tabs":
        fm, _, (_, _, w, h) = text_masks(text, font, int(box[3] - box[1]), int(box[2] - box[0]), 0)
        pad = 0.03 * W
        d.rounded_rectangle((-R, -R, x + w + pad, y + h + pad * (2.6 if underlined else 1.3)),
                            radius=R, fill=colour)
        fill, stroke, outline = fill or on(colour), 0, None
    elif look == "oval":
        fill, stroke, outline = fill or WHITE, int(0.012 * W), DARK
    elif look == "band":
        fill, stroke, outline = fill or colour, int(0.008 * W), DARK
    else:
        fill, stroke, outline = fill or ink(colour), 0, None
    ink_box = put_text(img, text, font, box, fill, stroke=stroke, align="left", valign="top")
    if underlined:
        underline(d, ink_box, fill, outline)
    return ink_box


def pip(img: Image.Image, st: Style, colour: RGB, under, radius: float):
    """A small mark centred under the index: a dot, or a diamond in the print style (none on tabs)."""
    if st.frame == "tabs":
        return
    d = ImageDraw.Draw(img)
    cx, top, r = (under[0] + under[2]) / 2, under[3] + 0.04 * H, radius * W
    fill = WHITE if st.frame == "oval" else colour
    if st.frame == "line":
        d.polygon([(cx, top), (cx + r, top + r), (cx, top + 2 * r), (cx - r, top + r)], fill=fill)
    else:
        d.ellipse((cx - r, top, cx + r, top + 2 * r), fill=fill, outline=DARK, width=int(0.006 * W))


# ---------------------------------------------------------------- faces

def woolly_face(card, st: Style) -> np.ndarray:
    if card.kind != "number":
        return woolly_action(card.code, st)
    colour = tune(WOOLLY_COLOURS[card.code[-1]], st)
    img = base(st, colour)
    six_nine = card.value in (6, 9)
    box = corner_text(img, st, colour, str(card.value), st.index_h, underlined=six_nine)
    pip(img, st, colour, (box[0], box[1], box[2], box[3] + (0.025 * H if six_nine else 0)), 0.028)
    mirror_corner(img)
    d = ImageDraw.Draw(img)
    big_box, herd = (0.27 * W, 0.245 * H, 0.73 * W, 0.44 * H), (0.24 * W, 0.47 * H, 0.76 * W, 0.78 * H)
    fill, stroke = colour, int(0.012 * W)
    if st.frame == "oval":
        big_box, herd = (0.33 * W, 0.265 * H, 0.67 * W, 0.425 * H), (0.27 * W, 0.44 * H, 0.73 * W, 0.76 * H)
    elif st.frame == "line":
        cy, r = 0.335 * H, 0.19 * W
        d.ellipse((W / 2 - r, cy - r, W / 2 + r, cy + r), fill=colour)
        big_box, herd = (0.36 * W, cy - 0.07 * H, 0.64 * W, cy + 0.06 * H), (0.24 * W, 0.49 * H, 0.76 * W, 0.79 * H)
        fill, stroke = on(colour), 0
    elif st.frame == "tabs":
        fill, stroke = ink(colour), 0
    ink_box = put_text(img, str(card.value), st.big_font, big_box, fill, stroke=stroke)
    if six_nine:
        underline(d, ink_box, fill, DARK if stroke else None)
    body, details = alpaca(colour, st.gloves)
    figure(d, herd, body, details, edge=BROWN_EDGE, flip=st.flip)
    return finish(img, st.edge)


def action_icon(img: Image.Image, code: str, colour: RGB, box, st: Style, big: bool):
    """The action's picture in box: a loot bag (STEAL), an eye (REVEAL), a KAPOW burst (WAR)."""
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = box
    s = min(x1 - x0, y1 - y0)
    at = lambda u0, v0, u1, v1: ((x0 + x1 - s) / 2 + u0 * s, (y0 + y1 - s) / 2 + v0 * s,
                                 (x0 + x1 - s) / 2 + u1 * s, (y0 + y1 - s) / 2 + v1 * s)
    if code == "STEAL":
        figure(d, box, *loot_bag(colour), ow=0.03 if not big else 0.02)
        put_text(img, "$", st.big_font, at(0.38, 0.5, 0.62, 0.9), (120, 84, 40))
    elif code == "REVEAL":
        figure(d, box, *eye(colour), ow=0.03 if not big else 0.02)
    else:
        figure(d, box, *burst((255, 210, 50), (240, 90, 40)), ow=0.03 if not big else 0.02)
        if big:
            put_text(img, "KAPOW", st.word_font, at(0.22, 0.43, 0.78, 0.57), WAR_RED, stroke=int(0.006 * W),
                     stroke_fill=WHITE)


def woolly_action(code: str, st: Style) -> np.ndarray:
    colour = tune(ACTION_COLOURS[code], st) if code != "WAR" else ACTION_COLOURS[code]
    img = base(st, colour)
    d = ImageDraw.Draw(img)
    if code == "WAR" and st.frame == "band":
        m = 0.0525 * W
        d.rounded_rectangle((m, m, W - 1 - m, H - 1 - m), radius=R * 0.6, outline=WAR_RED, width=int(0.008 * W))
    elif code == "WAR" and st.frame == "line":
        m = 0.065 * W
        d.rounded_rectangle((m, m, W - 1 - m, H - 1 - m), radius=R * 0.3, outline=WAR_RED, width=int(0.004 * W))
    word_fill = WAR_RED if code == "WAR" else (colour if st.frame != "line" else ink(colour))
    box = corner_text(img, st, colour, code, 0.062 if code != "WAR" else 0.09,
                      fill=word_fill if code == "WAR" and st.frame != "tabs" else None)
    s = 0.1 * H
    cx, top = ((box[0] + box[2]) / 2, box[3] + 0.035 * H) if st.frame != "tabs" else (box[0] + s / 2, box[3] + 0.055 * H)
    action_icon(img, code, colour, (cx - s / 2, top, cx + s / 2, top + s), st, big=False)
    mirror_corner(img)
    if st.frame == "oval":
        action_icon(img, code, colour, (0.3 * W, 0.28 * H, 0.7 * W, 0.56 * H), st, big=True)
        word_box = (0.25 * W, 0.59 * H, 0.75 * W, 0.67 * H)
    else:
        action_icon(img, code, colour, (0.25 * W, 0.27 * H, 0.75 * W, 0.56 * H), st, big=True)
        word_box = (0.2 * W, 0.585 * H, 0.8 * W, 0.68 * H)
    put_text(img, code, st.word_font, word_box, word_fill, stroke=int(0.01 * W),
             stroke_fill=DARK if st.frame != "oval" else WHITE)
    return finish(img, st.edge)


def pips_row(d: ImageDraw.ImageDraw, value: int, colour: RGB, cy: float, r: float):
    """``value`` dots in rows of at most six, centred on cy."""
    rows = [min(6, value - 6 * k) for k in range((value + 5) // 6)]
    gap = 2.7 * r
    for j, n in enumerate(rows):
        y = cy + (j - (len(rows) - 1) / 2) * gap
        for i in range(n):
            x = W / 2 + (i - (n - 1) / 2) * gap
            d.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=DARK, width=int(0.004 * W))


def wave(d: ImageDraw.ImageDraw, y: float, colour: RGB, amp: float, width: int):
    pts = [(x, y + amp * math.sin(2 * math.pi * x / (0.22 * W))) for x in range(0, W + 1, 6)]
    d.line(pts, fill=colour, width=width, joint="curve")


def namikopy_face(card, st: Style) -> np.ndarray:
    if card.kind != "number":
        return bird_face(card.code, st)
    v = card.value
    colour = tune(NAMIKOPY_GROUPS[(v - 1) // 3], st)
    img = base(st, colour) if st.frame != "oval" else Image.new("RGB", (W, H), st.paper)
    d = ImageDraw.Draw(img)
    if st.frame == "oval":   # colour bands top and bottom instead of a full colour card
        d.rectangle((0, 0, W, 0.035 * H), fill=colour)
        d.rectangle((0, H - 0.035 * H, W, H), fill=colour)
    box = corner_text(img, st, colour, str(v), st.index_h, underlined=v in (6, 9),
                      look="band" if st.frame == "oval" else None)
    if st.frame != "tabs":
        put_text(img, "PTS", st.word_font, (box[0], box[3] + (0.05 if v in (6, 9) else 0.025) * H,
                                            box[2], box[3] + (0.078 if v in (6, 9) else 0.053) * H),
                 ink(colour))
    mirror_corner(img)
    d = ImageDraw.Draw(img)
    band = (0.345 * H, 0.595 * H)
    if st.frame in ("band", "oval"):
        d.rectangle((0, band[0], W, band[1]), fill=colour)
        for k in range(3):
            wave(d, band[0] + (0.25 + 0.25 * k) * (band[1] - band[0]), shade(colour, 0.8, 0.08),
                 0.012 * H, int(0.01 * W))
        fill, stroke = WHITE, int(0.012 * W)
    elif st.frame == "tabs":
        r = 0.2 * W
        d.ellipse((W / 2 - r, sum(band) / 2 - r, W / 2 + r, sum(band) / 2 + r),
                  fill=colour, outline=DARK, width=int(0.006 * W))
        fill, stroke = on(colour), 0
    else:
        fill, stroke = ink(colour), 0
    big = (0.28 * W, band[0] + 0.035 * H, 0.72 * W, band[1] - 0.035 * H)
    ink_box = put_text(img, str(v), st.big_font, big, fill, stroke=stroke)
    if v in (6, 9):
        underline(d, (ink_box[0], ink_box[1] - 0.02 * H, ink_box[2], ink_box[3] - 0.02 * H), fill,
                  DARK if stroke else None)
    put_text(img, "POINTS" if v > 1 else "POINT", st.word_font, (0.3 * W, 0.27 * H, 0.7 * W, 0.305 * H), ink(colour))
    pips_row(d, v, colour, 0.675 * H, 0.022 * W)
    return finish(img, st.edge)


def bird_face(code: str, st: Style) -> np.ndarray:
    colour = tune(BIRD_COLOURS[code], st)
    img = base(st, colour)
    box = corner_text(img, st, colour, "WAR", 0.085)
    top = box[3] + (0.045 if st.frame == "tabs" else 0.02) * H
    put_text(img, code, st.word_font, (box[0], top, max(box[2], box[0] + 0.22 * W), top + 0.025 * H),
             WHITE if st.frame == "oval" else ink(colour), align="left")
    mirror_corner(img)
    d = ImageDraw.Draw(img)
    if st.frame == "oval":
        war, bird, name = (0.33, 0.265, 0.67, 0.335), (0.25, 0.36, 0.75, 0.66), (0.31, 0.68, 0.69, 0.715)
    else:
        war, bird, name = (0.25, 0.24, 0.75, 0.34), (0.2, 0.37, 0.8, 0.68), (0.24, 0.695, 0.76, 0.735)
    put_text(img, "WAR", st.big_font, cbox(*war), WAR_RED, stroke=int(0.01 * W))
    body, details = BIRDS[code]()
    figure(d, cbox(*bird), body, details)
    put_text(img, code, st.word_font, cbox(*name), ink(colour))
    return finish(img, st.edge)


# ---------------------------------------------------------------- backs

def back_card(pattern, border: RGB = WHITE, m: float = 0.05, edge: RGB = (90, 90, 90)) -> np.ndarray:
    """A back: ``pattern(img)`` fills an inner panel, inside a border of width m (card widths)."""
    img = Image.new("RGB", (W, H), border)
    inner = int(m * W)
    panel = Image.new("RGB", (W - 2 * inner, H - 2 * inner))
    pattern(panel)
    symmetric(panel)
    mask = Image.new("L", panel.size)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, panel.width - 1, panel.height - 1), radius=R * 0.5, fill=255)
    img.paste(panel, (inner, inner), mask)
    return finish(img, edge)


def symmetric(img: Image.Image):
    """Make a panel 180-degree symmetric: the top half, turned, becomes the bottom half."""
    w, h = img.size
    img.paste(img.crop((0, 0, w, h // 2)).rotate(180), (0, h - h // 2))


def lattice(fg: RGB, bg: RGB, step: float, width: float, medallion: bool = False):
    def draw(img):
        d = ImageDraw.Draw(img)
        w, h = img.size
        d.rectangle((0, 0, w, h), fill=bg)
        s, L, cx, cy = step * W, w + h, w / 2, h / 2
        for k in range(-int(L / s) - 1, int(L / s) + 2):
            c = k * s
            d.line((cx + c - L, cy - L, cx + c + L, cy + L), fill=fg, width=int(width * W))
            d.line((cx + c + L, cy - L, cx + c - L, cy + L), fill=fg, width=int(width * W))
        if medallion:
            for r, c in ((0.27, fg), (0.25, bg), (0.22, fg), (0.205, bg), (0.12, fg), (0.1, bg), (0.04, fg)):
                d.ellipse((cx - r * W, cy - 1.3 * r * W, cx + r * W, cy + 1.3 * r * W), fill=c)
            for m, wd in ((0.03, 0.008), (0.05, 0.003)):
                d.rectangle((m * W, m * W, w - m * W, h - m * W), outline=fg if m == 0.05 else bg, width=int(wd * W))
    return draw


def diamonds(colours, step: float):
    def draw(img):
        d = ImageDraw.Draw(img)
        w, h = img.size
        cx, cy = w / 2, h / 2
        d.rectangle((0, 0, w, h), fill=colours[0])
        k = int((w + h) / (step * W)) + 1
        for i in range(k, 0, -1):
            r = i * step * W
            d.polygon([(cx, cy - r), (cx + r * 0.72, cy), (cx, cy + r), (cx - r * 0.72, cy)], fill=colours[i % len(colours)])
    return draw


def dots(fg: RGB, bg: RGB, step: float, radius: float):
    def draw(img):
        d = ImageDraw.Draw(img)
        w, h = img.size
        d.rectangle((0, 0, w, h), fill=bg)
        s, r = step * W, radius * W
        for j in range(-int(h / s) - 1, int(h / s) + 2):
            off = s / 2 if j % 2 else 0
            for i in range(-int(w / s) - 1, int(w / s) + 2):
                x, y = w / 2 + i * s + off, h / 2 + j * s * 0.87
                d.ellipse((x - r, y - r, x + r, y + r), fill=fg)
    return draw


def stripes(colours, step: float, angle: float = 35):
    def draw(img):
        d = ImageDraw.Draw(img)
        w, h = img.size
        cx, cy, L = w / 2, h / 2, w + h
        ca, sa = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        s = step * W
        for k in range(-int(L / s) - 1, int(L / s) + 2):
            a, b = (k - 0.5) * s, (k + 0.5) * s     # stripe k spans [a, b] across the stripes
            pts = [(cx + t * ca + u * -sa, cy + t * sa + u * ca) for t, u in ((-L, a), (L, a), (L, b), (-L, b))]
            d.polygon(pts, fill=colours[abs(k) % len(colours)])
    return draw


def waves(colours, bg: RGB, step: float):
    def draw(img):
        d = ImageDraw.Draw(img)
        w, h = img.size
        d.rectangle((0, 0, w, h), fill=bg)
        s = step * W
        for k in range(int(h / 2 / s) + 2):
            y = h / 2 - (k + 0.5) * s
            pts = [(x, y + 0.3 * s * math.sin(2 * math.pi * (x - w / 2) / (0.25 * W))) for x in range(-6, w + 7, 6)]
            d.line(pts, fill=colours[k % len(colours)], width=int(0.4 * s), joint="curve")
        symmetric(img)
    return draw


def alpaca_back(img):
    d = ImageDraw.Draw(img)
    w, h = img.size
    dots((232, 214, 186), (186, 140, 96), 0.06, 0.012)(img)
    d.ellipse((0.08 * W, 0.06 * H, w - 0.08 * W, h / 2 + 0.02 * H), fill=(120, 78, 48), outline=(247, 240, 226),
              width=int(0.012 * W))
    body, details = alpaca(WOOLLY_COLOURS["R"], False)
    silhouette = [(p[0], p[1], (247, 240, 226), *p[3:]) for p in body]
    figure(d, (0.18 * W, 0.11 * H, w - 0.18 * W, h / 2 - 0.03 * H), silhouette, ow=0.0)
    symmetric(img)
    for i, c in enumerate(WOOLLY_COLOURS.values()):
        y = h / 2 + (i - 2) * 0.012 * H
        d.line((0.1 * W, y, w - 0.1 * W, y), fill=c, width=int(0.012 * H))


def feather_back(img):
    d = ImageDraw.Draw(img)
    w, h = img.size
    navy, gold, cream = (24, 40, 78), (214, 168, 60), (240, 232, 214)
    d.rectangle((0, 0, w, h), fill=navy)
    cx, cy = w / 2, h / 2
    for k in range(12):
        a = math.pi * k / 6
        fx, fy = cx + 0.2 * W * math.cos(a), cy + 0.2 * W * math.sin(a)
        d.polygon(oval_pts(fx, fy, 0.17 * W, 0.05 * W, a), fill=gold if k % 2 else cream)
        d.line((cx + 0.04 * W * math.cos(a), cy + 0.04 * W * math.sin(a), cx + 0.37 * W * math.cos(a),
                cy + 0.37 * W * math.sin(a)), fill=navy, width=int(0.008 * W))
    d.ellipse((cx - 0.06 * W, cy - 0.06 * W, cx + 0.06 * W, cy + 0.06 * W), fill=gold)
    for y in (0.09 * H, 0.15 * H, h - 0.09 * H, h - 0.15 * H):
        pts = [(x, y + 0.012 * H * math.sin(2 * math.pi * (x - cx) / (0.16 * W))) for x in range(0, w + 1, 6)]
        d.line(pts, fill=gold, width=int(0.012 * W))
    symmetric(img)


BACKS = {
    "standard": [("back-classic-red", lattice(WHITE, (178, 32, 42), 0.045, 0.006, True), WHITE),
                 ("back-classic-blue", lattice(WHITE, (30, 72, 156), 0.045, 0.006, True), WHITE),
                 ("back-diamonds", diamonds([(20, 90, 60), (236, 226, 200)], 0.06), WHITE),
                 ("back-dots", dots((230, 200, 120), (28, 36, 70), 0.07, 0.018), (236, 232, 222)),
                 ("back-stripes", stripes([(120, 24, 40), (210, 180, 120)], 0.05), WHITE)],
    "woolly": [("back-alpaca", alpaca_back, (247, 240, 226)),
               ("back-lattice", lattice((238, 222, 196), (120, 78, 48), 0.08, 0.014), (247, 240, 226)),
               ("back-diamonds", diamonds([(24, 120, 130), (240, 138, 36), (250, 240, 220)], 0.05), WHITE),
               ("back-dots", dots((255, 255, 255), (122, 62, 161), 0.09, 0.025), WHITE),
               ("back-stripes", stripes(list(WOOLLY_COLOURS.values()), 0.07, 60), WHITE)],
    "namikopy": [("back-feathers", feather_back, (240, 232, 214)),
                 ("back-lattice", lattice((214, 168, 60), (24, 40, 78), 0.06, 0.01), WHITE),
                 ("back-diamonds", diamonds([(200, 50, 74), (255, 236, 236)], 0.045), (255, 250, 245)),
                 ("back-dots", dots((240, 232, 214), (19, 120, 120), 0.06, 0.02), (240, 232, 214)),
                 ("back-waves", waves([(42, 127, 184), (110, 180, 220)], (236, 244, 250), 0.05), WHITE)],
}


# ---------------------------------------------------------------- the interface

FACE_DRAWERS = {"woolly": woolly_face, "namikopy": namikopy_face}


@cache
def faces(deck: str) -> list[CardImage]:
    """Every card code of the deck, once per style. Cached: the arrays are read-only."""
    if deck not in FACE_DRAWERS:
        raise ValueError(f"warref draws faces for woolly and namikopy only, not {deck!r}.")
    draw = FACE_DRAWERS[deck]
    return [CardImage(deck, card.code, st.name, draw(card, st)) for card in load_deck(deck).cards for st in STYLES]


@cache
def backs(deck: str) -> list[CardImage]:
    """warref's own back designs for the deck (code "BACK"). Cached: the arrays are read-only."""
    if deck not in BACKS:
        raise ValueError(f"No backs for deck {deck!r}; decks: {', '.join(BACKS)}.")
    return [CardImage(deck, "BACK", name, back_card(pattern, border)) for name, pattern, border in BACKS[deck]]


def contact_sheet(path: str, width: int = 100, cols: int = 16):
    """Every woolly and namikopy face and every back, scaled to ``width`` pixels wide, on grey."""
    cards = [*faces("woolly"), *faces("namikopy"), *(b for d in BACKS for b in backs(d))]
    h, gap = round(width * CARD_H / CARD_W), 6
    rows = (len(cards) + cols - 1) // cols
    sheet = Image.new("RGBA", (cols * (width + gap) + gap, rows * (h + gap) + gap), (96, 110, 100, 255))
    for i, c in enumerate(cards):
        im = Image.fromarray(np.ascontiguousarray(c.image), "RGBA").resize((width, h), Image.LANCZOS)
        sheet.alpha_composite(im, (gap + (i % cols) * (width + gap), gap + (i // cols) * (h + gap)))
    sheet.convert("RGB").save(path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m vision.art.own OUT.png")
    contact_sheet(sys.argv[1])
    print(f"wrote {sys.argv[1]}")
