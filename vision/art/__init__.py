"""Card art for every deck: faces and backs as RGBA images of one fixed size.

Every image is CARD_H x CARD_W pixels (700 x 500: the 63 x 88 mm card's 5:7 proportions), RGBA
uint8 with straight alpha; the rounded corners are transparent. ``code`` is the card's code in
the deck file (referee/decks/<deck>.toml), or "BACK" for a back.

Where a deck's art comes from is its profile's ``art`` and ``more_art`` (vision/profiles.py):
- "npm" (standard): faces fetched from npm packages at build time and rendered from SVG
  (vision/art/standard.py, cached under datasets/cache/, never committed); backs from those packages
  plus warref's own designs; with ``more_art``, AisleRiot's themes too (vision/art/aisleriot.py).
- "own" (woolly, namikopy): warref's own art drawn with Debian fonts (vision/art/own.py).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..profiles import BUILT_IN

CARD_W, CARD_H = 500, 700
CORNER_RADIUS = 28          # pixels at CARD_W (3.5 mm on a 63 mm card)
DECKS = tuple(BUILT_IN)     # every built-in deck has art
def _cache() -> Path:
    """Where fetched card art is kept: datasets/cache/ in a checkout, else the user's cache folder."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "datasets").is_dir():
        return checkout / "datasets" / "cache"
    import platformdirs
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
    import cv2
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


def faces(deck: str, cache: Path | None = None, more_art: bool = False) -> list[CardImage]:
    """Every face of the deck in every artwork (several images per code). ``more_art``: the standard
    deck in AisleRiot's themes too (vision/art/aisleriot.py; Debian's gnome-cards-data)."""
    profile = BUILT_IN.get(deck)
    if profile is None:
        raise ValueError(f"No card art for deck {deck!r}; decks with art: {', '.join(DECKS)}.")
    if profile.art == "npm":
        from . import standard
        result = standard.faces(cache or DEFAULT_CACHE)
    else:
        from . import own
        result = own.faces(deck)
    if more_art and profile.more_art:
        from . import aisleriot
        result = result + aisleriot.faces(cache or DEFAULT_CACHE)
    return result


def backs(deck: str, cache: Path | None = None, more_art: bool = False) -> list[CardImage]:
    """Several back designs for the deck (code "BACK"); ``more_art`` as in ``faces``."""
    from . import own
    result = own.backs(deck)
    profile = BUILT_IN.get(deck)
    if profile is not None and profile.art == "npm":
        from . import standard
        result = standard.backs(cache or DEFAULT_CACHE) + result
    if more_art and profile is not None and profile.more_art:
        from . import aisleriot
        result = result + aisleriot.backs(cache or DEFAULT_CACHE)
    return result
