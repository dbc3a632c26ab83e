"""A fast top-down table for live feeds (the demo, tests, benchmarks): ``flat_table`` at video rate.

``flat_table`` builds a new wooden table and warps each card's full-size art over the whole frame:
about 100 ms a frame. Here the table is made once, each card's art is scaled once to the card's
height on the table, and each frame only rotates those small sprites into their own patch of a copy
of the table: a few milliseconds for a frame of a handful of cards. Hands (a skin-coloured arm and
palm passing over the cards) can be drawn on top.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .flat import Placed, _art
from .textures import table_texture

SKIN = (120, 160, 215)          # BGR


@dataclass(frozen=True)
class Hand:
    """An arm reaching in from the frame's edge point ``root`` to a palm centred at ``palm`` (pixels)."""
    root: tuple[float, float]
    palm: tuple[float, float]
    size: float = 90.0          # the palm's radius
    shade: float = 1.0


class FastTable:
    def __init__(self, deck: str, size=(1280, 720), card_h: float = 170, seed: int = 0,
                 artwork: str | None = None, kind: str = "wood", faces: dict[str, np.ndarray] | None = None):
        """``faces``: pictures of one's own by code (RGBA, a taught deck's cards), drawn in place of
        the built-in art; a code without one is drawn in ``artwork``."""
        self.deck, self.size, self.card_h, self.artwork = deck, tuple(size), float(card_h), artwork
        self.faces = dict(faces or {})
        w, h = self.size
        rng = np.random.default_rng(seed)
        frame = table_texture(rng, kind, h, w, 1.0)
        if frame.max() <= 1.0:
            frame = frame * 255
        self.background = np.clip(frame[..., 2::-1], 0, 255).astype(np.uint8)   # RGB to BGR
        self._sprites: dict[tuple, np.ndarray] = {}    # (code, artwork), or (code,) for a picture of faces

    @property
    def card_w(self) -> float:
        return self.card_h * 5 / 7

    def sprite(self, code: str, artwork: str | None = None) -> np.ndarray:
        """The card's art at its size on the table, BGRA float32 with premultiplied colour."""
        own = artwork is None and code in self.faces
        key = (code,) if own else (code, artwork or self.artwork)
        if key not in self._sprites:
            rgba = self.faces[code] if own else _art(self.deck, code, key[1]).image
            sh, sw = rgba.shape[:2]
            s = self.card_h / sh
            small = cv2.resize(rgba, (max(1, round(sw * s)), max(1, round(sh * s))), interpolation=cv2.INTER_AREA)
            f = small.astype(np.float32)
            alpha = f[..., 3:] / 255
            self._sprites[key] = np.concatenate([f[..., 2::-1] * alpha, alpha], axis=2)
        return self._sprites[key]

    def render(self, cards, hands=(), out: np.ndarray | None = None) -> tuple[np.ndarray, list[Placed]]:
        """A BGR frame with each (code, (x, y) centre, angle in degrees[, artwork]) card, in order
        (later cards on top), then the hands; and where each card's corners are."""
        w, h = self.size
        frame = self.background.copy() if out is None else out
        placed = []
        for item in cards:
            code, (cx, cy), angle = item[:3]
            artwork = item[3] if len(item) > 3 else None
            sprite = self.sprite(code, artwork)
            sh, sw = sprite.shape[:2]
            M = cv2.getRotationMatrix2D((sw / 2, sh / 2), angle, 1.0)
            corners = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], np.float32) @ M.T
            corners += (cx - sw / 2, cy - sh / 2)
            placed.append(Placed(code, corners.astype(np.float32)))
            x0, y0 = np.floor(corners.min(0)).astype(int) - 1
            x1, y1 = np.ceil(corners.max(0)).astype(int) + 1
            X0, Y0, X1, Y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if X1 <= X0 or Y1 <= Y0:
                continue
            M2 = M.copy()
            M2[:, 2] += (cx - sw / 2 - X0, cy - sh / 2 - Y0)
            patch = cv2.warpAffine(sprite, M2, (X1 - X0, Y1 - Y0), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
            roi = frame[Y0:Y1, X0:X1].astype(np.float32)
            alpha = patch[..., 3:]
            frame[Y0:Y1, X0:X1] = np.clip(roi * (1 - alpha) + patch[..., :3], 0, 255).astype(np.uint8)
        for hand in hands:
            draw_hand(frame, hand)
        return frame, placed


def draw_hand(frame: np.ndarray, hand: Hand) -> None:
    """A skin-coloured arm and palm with soft edges, drawn in place."""
    h, w = frame.shape[:2]
    (rx, ry), (px, py), r = hand.root, hand.palm, hand.size
    x0 = int(max(0, min(rx, px) - 2 * r)); x1 = int(min(w, max(rx, px) + 2 * r))
    y0 = int(max(0, min(ry, py) - 2 * r)); y1 = int(min(h, max(ry, py) + 2 * r))
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    off = np.array([x0, y0], np.float32)
    a = np.array([rx, ry], np.float32) - off
    b = np.array([px, py], np.float32) - off
    cv2.line(mask, tuple(int(v) for v in a), tuple(int(v) for v in b), 255, int(r * 1.1), cv2.LINE_AA)
    d = b - a
    ang = float(np.degrees(np.arctan2(d[1], d[0])))
    cv2.ellipse(mask, (int(b[0]), int(b[1])), (int(r * 1.2), int(r)), ang, 0, 360, 255, -1, cv2.LINE_AA)
    u = d / max(1e-6, float(np.linalg.norm(d)))
    n = np.array([-u[1], u[0]])
    for k in (-0.6, -0.2, 0.2, 0.6):               # fingers
        base = b + u * r * 0.8 + n * r * k
        tip = base + u * r * 0.9
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, max(3, int(r * 0.3)), cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 2.0).astype(np.float32)[..., None] / 255
    yy = np.linspace(0.85, 1.1, y1 - y0, dtype=np.float32)[:, None, None]
    skin = np.array(SKIN, np.float32)[None, None] * yy * hand.shade
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    frame[y0:y1, x0:x1] = np.clip(roi * (1 - mask) + skin * mask, 0, 255).astype(np.uint8)
