"""What every piece of card art shares: its size, its rounded outline, the card image record, and
where fetched art is cached (vision/art/__init__.py says where each deck's art comes from)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

CARD_W, CARD_H = 500, 700
CORNER_RADIUS = 28          # pixels at CARD_W (3.5 mm on a 63 mm card)
def _cache() -> Path:
    """Where fetched card art is kept: datasets/cache/ in a checkout, else the user's cache folder."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "datasets").is_dir():
        return checkout / "datasets" / "cache"
    import platformdirs      # only outside a checkout; the GPU machine's python has none (vision/train/gpu.py)
    return Path(platformdirs.user_cache_dir("warref")) / "art"


DEFAULT_CACHE = _cache()


@functools.cache
def rounded_outline() -> np.ndarray:
    """CARD_H x CARD_W coverage (0..1, anti-aliased) of the rounded rectangle every card shares."""
    y, x = np.mgrid[0:CARD_H, 0:CARD_W] + 0.5
    r = CORNER_RADIUS
    dx = np.maximum(np.maximum(r - x, x - (CARD_W - r)), 0)
    dy = np.maximum(np.maximum(r - y, y - (CARD_H - r)), 0)
    outline = np.clip(r - np.hypot(dx, dy) + 0.5, 0, 1).astype(np.float32)
    outline.flags.writeable = False
    return outline


def as_card(bgr: np.ndarray) -> np.ndarray:
    """A picture of a card alone (BGR, any size: a taught deck's flattened photo) as card art:
    RGBA at art size, with the rounded outline every card shares as its alpha."""
    rgb = cv2.cvtColor(cv2.resize(bgr, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
    return np.dstack([rgb, (rounded_outline() * 255).astype(np.uint8)])


def on_white(rgba: np.ndarray) -> np.ndarray:
    """An RGBA card picture as RGB on white paper (what a photo of the card alone shows)."""
    alpha = rgba[..., 3:4].astype(np.float32) / 255
    return (rgba[..., :3].astype(np.float32) * alpha + 255 * (1 - alpha)).astype(np.uint8)


@dataclass(frozen=True)
class CardImage:
    deck: str
    code: str          # a code from the deck file, or "BACK"
    artwork: str       # which design: "letele", "svg-cards", "warref-bold", "back-stripes"...
    image: np.ndarray  # CARD_H x CARD_W x 4, uint8 RGBA

    @property
    def face_up(self) -> bool:
        return self.code != "BACK"
