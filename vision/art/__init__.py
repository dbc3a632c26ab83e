"""Card art for every deck: faces and backs as RGBA images of one fixed size.

Every image is CARD_H x CARD_W pixels (700 x 500: the 63 x 88 mm card's 5:7 proportions), RGBA
uint8 with straight alpha; the rounded corners are transparent. ``code`` is the card's code in
the deck file (referee/decks/<deck>.toml), or "BACK" for a back.

Where a deck's art comes from is its profile's ``art`` and ``more_art`` (vision/profiles.py):
- "npm" (standard): faces fetched from npm packages at build time and rendered from SVG
  (vision/art/standard.py, cached under datasets/cache/, never committed); backs from those packages
  plus warref's own designs; with ``more_art``, AisleRiot's themes too (vision/art/aisleriot.py).
- "own" (woolly, namikopy): warref's own art drawn with Debian fonts (vision/art/own.py).

The renderers (standard.py, own.py, aisleriot.py: filelock and PIL, about 50 ms) are imported only
when art is asked for: vision/flatten.py imports this package for the card's size alone,
vision/synth/layout.py for the size and CardImage.
"""
from __future__ import annotations

from pathlib import Path

from ..profiles import BUILT_IN
from .base import CARD_H, CARD_W, CORNER_RADIUS, DEFAULT_CACHE, CardImage, as_card, on_white, rounded_outline

__all__ = ["CARD_H", "CARD_W", "CORNER_RADIUS", "DECKS", "DEFAULT_CACHE", "CardImage", "as_card", "backs", "faces",
           "on_white", "rounded_outline"]

DECKS = tuple(BUILT_IN)     # every built-in deck has art


def faces(deck: str, cache: Path | None = None, more_art: bool = False) -> list[CardImage]:
    """Every face of the deck in every artwork (several images per code). ``more_art``: the standard
    deck in AisleRiot's themes too (vision/art/aisleriot.py; Debian's gnome-cards-data)."""
    profile = BUILT_IN.get(deck)
    if profile is None:
        raise ValueError(f"No card art for deck {deck!r}; decks with art: {', '.join(DECKS)}.")
    if profile.art == "npm":
        from . import standard        # only when art is asked for (see the top)
        result = standard.faces(cache or DEFAULT_CACHE)
    else:
        from . import own             # only when art is asked for (see the top)
        result = own.faces(deck)
    if more_art and profile.more_art:
        from . import aisleriot       # only when art is asked for (see the top)
        result = result + aisleriot.faces(cache or DEFAULT_CACHE)
    return result


def backs(deck: str, cache: Path | None = None, more_art: bool = False) -> list[CardImage]:
    """Several back designs for the deck (code "BACK"); ``more_art`` as in ``faces``."""
    from . import own                 # only when art is asked for (see the top)
    result = own.backs(deck)
    profile = BUILT_IN.get(deck)
    if profile is not None and profile.art == "npm":
        from . import standard        # only when art is asked for (see the top)
        result = standard.backs(cache or DEFAULT_CACHE) + result
    if more_art and profile is not None and profile.more_art:
        from . import aisleriot       # only when art is asked for (see the top)
        result = result + aisleriot.backs(cache or DEFAULT_CACHE)
    return result
