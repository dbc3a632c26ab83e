"""Procedural table surfaces: wood, felt, cloth, laminate, glass and patterned, light and dark.

Each generator returns an H x W x 3 float32 image in [0, 1] of the table seen straight from above,
``scale`` pixels per millimetre, built from numpy noise (no image files). ``close_up_table`` picks
the mostly pale surfaces of close-up phone photos (white and grey laminate, paper, light wood,
pale cloth) and how glossy each is.
"""
from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

KINDS = ("wood", "felt", "cloth", "laminate", "glass", "pattern")


def noise(rng: np.random.Generator, h: int, w: int, cells: float, octaves: int = 3) -> np.ndarray:
    """Smooth fractal value noise in about [-1, 1], ``cells`` features across the longer side."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        n = max(2, int(cells * 2 ** o))
        gh, gw = max(2, int(n * h / max(h, w)) + 2), max(2, int(n * w / max(h, w)) + 2)
        grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
    return out / total


def _colour(rng: np.random.Generator, base: tuple[int, int, int], spread: float = 18) -> np.ndarray:
    return np.clip(np.array(base, np.float32) + rng.normal(0, spread, 3), 0, 255) / 255


def _tint(field: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    t = np.clip(field, 0, 1)[..., None]
    return a * (1 - t) + b * t


def wood(rng, h, w, scale):
    dark = rng.random() < 0.5
    base = _colour(rng, (92, 58, 34) if dark else (196, 152, 104), 20)
    grain_dir = rng.random() < 0.5
    along = np.linspace(0, w / scale, w, dtype=np.float32)[None, :] if grain_dir else \
        np.linspace(0, h / scale, h, dtype=np.float32)[:, None]
    across = np.linspace(0, h / scale, h, dtype=np.float32)[:, None] if grain_dir else \
        np.linspace(0, w / scale, w, dtype=np.float32)[None, :]
    warp = noise(rng, h, w, 4) * rng.uniform(6, 18)
    rings = np.sin((across + warp) * rng.uniform(0.25, 0.6)) * 0.5 + 0.5
    fibres = noise(rng, h, w, 60, 2) * 0.5 + 0.5
    field = 0.55 * rings + 0.25 * fibres + 0.2 * (noise(rng, h, w, 3) * 0.5 + 0.5)
    img = _tint(field, base * 0.72, np.minimum(base * 1.18, 1))
    plank = rng.uniform(90, 220)
    seams = (np.abs(((across + 0 * along) % plank) - plank / 2) > plank / 2 - 0.8)
    img[np.broadcast_to(seams, (h, w))] *= 0.6
    return img


def light_wood(rng, h, w, scale):
    """A pale wooden desk seen close: fine straight grain streaks, faint rings, now and then a seam."""
    base = _colour(rng, (214, 184, 146), 14)
    if rng.random() < 0.5:
        return _grain_along_x(rng, w, h, scale, base).transpose(1, 0, 2).copy()
    return _grain_along_x(rng, h, w, scale, base)


def _grain_along_x(rng, h, w, scale, base):
    """``light_wood`` with its grain along x."""
    h_mm, w_mm = h / scale, w / scale
    def streaks(pitch_mm: float, length_mm: float) -> np.ndarray:
        grid = rng.uniform(-1, 1, (max(2, int(h_mm / pitch_mm)), max(2, int(w_mm / length_mm)))).astype(np.float32)
        return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
    across = np.linspace(0, h_mm, h, dtype=np.float32)[:, None]
    warp = noise(rng, h, w, max(2.0, w_mm / 120)) * rng.uniform(3, 10)
    rings = np.sin((across + warp) * rng.uniform(0.15, 0.45)) * 0.5 + 0.5
    field = 0.35 * rings + 0.35 * (streaks(0.6, 40) * 0.5 + 0.5) + 0.3 * (streaks(2.5, 90) * 0.5 + 0.5)
    img = _tint(field, base * rng.uniform(0.82, 0.9), np.minimum(base * 1.06, 1))
    plank = rng.uniform(90, 220)
    seams = np.abs((across + rng.uniform(0, plank)) % plank - plank / 2) > plank / 2 - 0.4
    img[np.broadcast_to(seams, (h, w))] *= 0.75
    return img


def felt(rng, h, w, scale):
    base = _colour(rng, [(40, 110, 60), (30, 70, 130), (130, 35, 40), (90, 90, 95), (60, 40, 90)][rng.integers(5)])
    field = noise(rng, h, w, 80, 2) * 0.06 + noise(rng, h, w, 3) * 0.05
    return np.clip(base[None, None] * (1 + field[..., None]), 0, 1)


def cloth(rng, h, w, scale, pale: bool = False):
    a = _colour(rng, (230, 225, 215), 20)
    if pale:            # linen: a faint check of two near whites
        b = np.clip(a * rng.uniform(0.85, 0.96) + rng.normal(0, 0.02, 3), 0, 1).astype(np.float32)
    else:
        b = _colour(rng, [(180, 40, 40), (40, 80, 160), (60, 120, 60), (200, 160, 40)][rng.integers(4)], 25)
    period = rng.uniform(8, 30) * scale
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    u = x * np.cos(angle) + y * np.sin(angle)
    v = -x * np.sin(angle) + y * np.cos(angle)
    sx = (np.sin(u / period * 2 * np.pi) > 0).astype(np.float32)
    sy = (np.sin(v / period * 2 * np.pi) > 0).astype(np.float32)
    check = (sx + sy) / 2
    img = _tint(check, a, b)
    weave = np.sin(u * 2.2) * np.sin(v * 2.2) * 0.04
    return np.clip(img * (1 + weave[..., None] + noise(rng, h, w, 50, 2)[..., None] * 0.03), 0, 1)


def laminate(rng, h, w, scale, base: tuple[int, int, int] | None = None):
    base = _colour(rng, base or [(235, 235, 230), (200, 200, 195), (120, 120, 125), (225, 210, 180), (45, 45, 50)][rng.integers(5)], 10)
    speckle = rng.normal(0, 0.02, (h, w)).astype(np.float32)
    return np.clip(base[None, None] * (1 + speckle[..., None] + noise(rng, h, w, 2)[..., None] * 0.04), 0, 1)


def glass(rng, h, w, scale):
    base = _colour(rng, (40, 48, 52), 12)
    img = np.broadcast_to(base, (h, w, 3)).copy()
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    u = (x * np.cos(angle) + y * np.sin(angle)) / max(h, w)
    streak = np.exp(-((u - rng.uniform(0.2, 0.8)) ** 2) / (2 * rng.uniform(0.01, 0.05) ** 2))
    img += streak[..., None] * rng.uniform(0.15, 0.45)
    img += (noise(rng, h, w, 2)[..., None] * 0.5 + 0.5) * 0.12
    return np.clip(img, 0, 1)


def pattern(rng, h, w, scale):
    bg = _colour(rng, [(240, 235, 220), (50, 60, 90), (210, 225, 235), (90, 40, 50)][rng.integers(4)], 15)
    fg = _colour(rng, [(200, 80, 60), (240, 200, 80), (80, 150, 190), (250, 250, 245)][rng.integers(4)], 20)
    period = rng.uniform(15, 45) * scale
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    style = rng.integers(3)
    if style == 0:      # polka dots
        d = np.hypot((x % period) - period / 2, (y % period) - period / 2)
        m = (d < period * rng.uniform(0.15, 0.3)).astype(np.float32)
    elif style == 1:    # diamonds
        m = ((np.abs((x % period) - period / 2) + np.abs((y % period) - period / 2)) < period * 0.3).astype(np.float32)
    else:               # blotchy flowers
        m = (noise(rng, h, w, max(h, w) / period) > 0.25).astype(np.float32)
    m = cv2.GaussianBlur(m, (0, 0), 0.8)
    return _tint(m, bg, fg)


def paper(rng, h, w, scale):
    """A sheet of white paper: near white, faint fibres and a gentle cockle."""
    base = _colour(rng, (242, 242, 238), 6)
    fibres = noise(rng, h, w, max(8.0, max(h, w) / scale / 1.5), 2) * 0.015
    cockle = noise(rng, h, w, 3) * 0.025
    return np.clip(base[None, None] * (1 + (fibres + cockle)[..., None]), 0, 1)


GENERATORS: dict[str, Callable] = {"wood": wood, "felt": felt, "cloth": cloth, "laminate": laminate,
                                    "glass": glass, "pattern": pattern, "paper": paper, "light_wood": light_wood}

# close-up tables: (name, generator, keyword arguments, share); "other" is any of KINDS
CLOSE_TABLES = (("white laminate", laminate, {"base": (236, 236, 232)}, 0.24),
                ("grey laminate", laminate, {"base": (185, 186, 184)}, 0.14),
                ("paper", paper, {}, 0.20),
                ("light wood", light_wood, {}, 0.15),
                ("pale cloth", cloth, {"pale": True}, 0.07),
                ("other", None, {}, 0.20))
GLOSS = {"laminate": 0.9, "glass": 1.0, "wood": 0.55, "light_wood": 0.5, "pattern": 0.3, "paper": 0.12, "cloth": 0.05, "felt": 0.0}


def close_up_table(rng: np.random.Generator, h: int, w: int, scale: float) -> tuple[str, np.ndarray, float]:
    """A close-up photo's table: its name, its texture, and how glossy it is (0 matte to 1 mirror,
    for reflections of the lights: ``effects.tube_glare``)."""
    shares = np.array([c[3] for c in CLOSE_TABLES])
    name, make, kwargs, _ = CLOSE_TABLES[rng.choice(len(CLOSE_TABLES), p=shares / shares.sum())]
    if make is None:
        name = KINDS[rng.integers(len(KINDS))]
        make = GENERATORS[name]
    texture = make(rng, h, w, scale, **kwargs).astype(np.float32)
    gloss = GLOSS[make.__name__] * rng.uniform(0.7, 1.0)
    return name, texture, float(gloss)


def table_texture(rng: np.random.Generator, kind: str, h: int, w: int, scale: float) -> np.ndarray:
    return GENERATORS[kind](rng, h, w, scale).astype(np.float32)
