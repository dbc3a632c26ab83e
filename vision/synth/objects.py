"""Things on a table that are not cards: players' hands and arms, cups, dice, phones.

Each maker returns (RGBA uint8 sprite, (width_mm, height_mm)); sprites are drawn at PX_PER_MM.
"""
from __future__ import annotations

import cv2
import numpy as np

PX_PER_MM = 2.0
SKIN = ((224, 180, 150), (198, 144, 110), (160, 110, 80), (110, 72, 50), (240, 200, 175))


def _canvas(w_mm: float, h_mm: float) -> np.ndarray:
    return np.zeros((int(h_mm * PX_PER_MM), int(w_mm * PX_PER_MM), 4), np.uint8)


def _shade(sprite: np.ndarray, strength: float = 0.35) -> np.ndarray:
    """Darken towards the silhouette's edges so flat shapes look rounded."""
    alpha = sprite[..., 3].astype(np.float32) / 255
    inner = cv2.GaussianBlur(alpha, (0, 0), max(2.0, sprite.shape[1] / 25))
    factor = 1 - strength * (1 - np.clip(inner * 1.6, 0, 1))
    sprite[..., :3] = np.clip(sprite[..., :3] * factor[..., None], 0, 255).astype(np.uint8)
    return sprite


def hand(rng: np.random.Generator) -> tuple[np.ndarray, tuple[float, float]]:
    """A hand with fingers (pointing up in the sprite) and the forearm reaching down off the sprite."""
    w_mm, h_mm = 120.0, 420.0
    img = _canvas(w_mm, h_mm)
    skin = np.clip(np.array(SKIN[rng.integers(len(SKIN))]) + rng.normal(0, 8, 3), 0, 255)
    colour = (int(skin[0]), int(skin[1]), int(skin[2]), 255)
    p = PX_PER_MM
    cx = w_mm / 2 * p
    palm_y = 110 * p
    cv2.ellipse(img, (int(cx), int(palm_y)), (int(42 * p), int(52 * p)), 0, 0, 360, colour, -1, cv2.LINE_AA)
    spread = rng.uniform(0.0, 0.25)
    curl = rng.uniform(0.55, 1.0)        # fingers bent under look shorter from above
    for i, (length, dx) in enumerate(((62, -27), (72, -9), (68, 9), (55, 26))):
        angle = (i - 1.5) * spread
        base = np.array([cx + dx * p, palm_y - 30 * p])
        tip = base + np.array([np.sin(angle), -np.cos(angle)]) * length * curl * p
        cv2.line(img, tuple(int(v) for v in base), tuple(int(v) for v in tip), colour, int(17 * p), cv2.LINE_AA)
    thumb_side = 1 if rng.random() < 0.5 else -1
    base = np.array([cx + thumb_side * 35 * p, palm_y + 5 * p])
    tip = base + np.array([thumb_side * 30, -38]) * p * rng.uniform(0.7, 1.0)
    cv2.line(img, tuple(int(v) for v in base), tuple(int(v) for v in tip), colour, int(20 * p), cv2.LINE_AA)
    sleeve = np.clip(rng.integers(0, 255, 3), 0, 255)
    cv2.line(img, (int(cx), int(palm_y + 40 * p)), (int(cx + rng.normal(0, 8) * p), int(h_mm * p)),
             colour, int(62 * p), cv2.LINE_AA)
    if rng.random() < 0.7:   # a sleeve over the forearm
        y0 = int(rng.uniform(200, 300) * p)
        cv2.rectangle(img, (int(cx - 40 * p), y0), (int(cx + 40 * p), int(h_mm * p)),
                      (int(sleeve[0]), int(sleeve[1]), int(sleeve[2]), 255), -1)
    return _shade(img), (w_mm, h_mm)


def cup(rng: np.random.Generator) -> tuple[np.ndarray, tuple[float, float]]:
    r = rng.uniform(32, 45)
    size = 2 * r + 30
    img = _canvas(size, size)
    p = PX_PER_MM
    c = (int(r * p + 5 * p), int(size * p / 2))
    body = tuple(int(v) for v in np.clip(rng.integers(30, 250, 3), 0, 255)) + (255,)
    cv2.ellipse(img, (c[0] + int((r + 10) * p), c[1]), (int(12 * p), int(8 * p)), 0, 0, 360, body, int(5 * p), cv2.LINE_AA)
    cv2.circle(img, c, int(r * p), body, -1, cv2.LINE_AA)
    inside = (60, 35, 20, 255) if rng.random() < 0.5 else (235, 235, 230, 255)
    cv2.circle(img, c, int((r - 4) * p), inside, -1, cv2.LINE_AA)
    return _shade(img, 0.2), (size, size)


def die(rng: np.random.Generator) -> tuple[np.ndarray, tuple[float, float]]:
    s = rng.uniform(14, 20)
    img = _canvas(s, s)
    p = PX_PER_MM
    face = (245, 245, 240, 255) if rng.random() < 0.7 else (200, 30, 30, 255)
    pip = (20, 20, 20, 255) if face[0] > 240 else (250, 250, 250, 255)
    n = int(s * p)
    cv2.rectangle(img, (2, 2), (n - 3, n - 3), face, -1, cv2.LINE_AA)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, 1), (-1, 1), (1, -1)], 5: [(-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0)],
             6: [(-1, -1), (1, 1), (-1, 1), (1, -1), (-1, 0), (1, 0)]}[int(rng.integers(1, 7))]
    for sx, sy in spots:
        cv2.circle(img, (int(n / 2 + sx * n * 0.27), int(n / 2 + sy * n * 0.27)), max(2, int(n * 0.08)), pip, -1, cv2.LINE_AA)
    return _shade(img, 0.15), (s, s)


def phone(rng: np.random.Generator) -> tuple[np.ndarray, tuple[float, float]]:
    w, h = rng.uniform(65, 78), rng.uniform(135, 160)
    img = _canvas(w, h)
    p = PX_PER_MM
    case = tuple(int(v) for v in rng.integers(10, 80, 3)) + (255,)
    cv2.rectangle(img, (0, 0), (int(w * p) - 1, int(h * p) - 1), case, -1)
    screen = np.zeros_like(img[..., :3])
    top, bottom = rng.integers(0, 120, 3), rng.integers(0, 200, 3)
    ramp = np.linspace(0, 1, screen.shape[0])[:, None, None]
    screen[:] = (top * (1 - ramp) + bottom * ramp).astype(np.uint8)
    m = int(3 * p)
    img[m:-m, m:-m, :3] = screen[m:-m, m:-m]
    corner = np.zeros(img.shape[:2], np.uint8)
    cv2.rectangle(corner, (0, 0), (img.shape[1] - 1, img.shape[0] - 1), 255, -1)
    img[..., 3] = corner
    return img, (w, h)


OBJECTS = {"cup": cup, "die": die, "phone": phone}
