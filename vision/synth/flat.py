"""A plain top-down table frame with chosen cards at chosen places: for tests, benchmarks and demos.

Unlike ``render`` (random scenes for training), this places exactly the cards asked for, flat, seen
straight from above, on a wooden table (or another kind), and returns where each card's corners are.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import art

from .textures import table_texture


@dataclass
class Placed:
    card: str
    corners: np.ndarray        # 4x2 pixels, in print order (top-left, top-right, bottom-right, bottom-left)


def _art(deck: str, code: str, artwork: str | None) -> art.CardImage:
    pool = art.backs(deck) if code == "BACK" else [f for f in art.faces(deck) if f.code == code]
    if not pool:
        raise ValueError(f"no art for {code!r} in the {deck} deck")
    return next((f for f in pool if f.artwork == artwork), pool[0])


def flat_table(deck: str, cards: list[tuple[str, tuple[float, float], float]], size=(1280, 720),
               card_h: float = 170, seed: int = 0, artwork: str | None = None,
               table: str = "wood") -> tuple[np.ndarray, list[Placed]]:
    """A BGR frame of ``size`` with each (code, (x, y) centre in pixels, angle in degrees) card on it,
    on a ``table`` of that kind (``textures.GENERATORS``: "paper" is a white sheet, as pale as a card)."""
    w, h = size
    rng = np.random.default_rng(seed)
    frame = table_texture(rng, table, h, w, 1.0)
    if frame.max() <= 1.0:                     # textures come as 0..1
        frame = frame * 255
    frame = frame[..., 2::-1].astype(np.float32)   # RGB to BGR
    placed = []
    for code, (cx, cy), angle in cards:
        sprite = _art(deck, code, artwork).image
        sh, sw = sprite.shape[:2]
        s = card_h / sh
        M = cv2.getRotationMatrix2D((sw / 2, sh / 2), angle, s)
        M[:, 2] += (cx - sw / 2, cy - sh / 2)
        rgba = cv2.warpAffine(sprite, M, (w, h), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0)).astype(np.float32)
        alpha = rgba[..., 3:] / 255
        frame = frame * (1 - alpha) + rgba[..., 2::-1] * alpha
        pts = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], np.float32) @ M.T
        placed.append(Placed(code, pts.astype(np.float32)))
    return np.clip(frame, 0, 255).astype(np.uint8), placed
