"""Settle: where readings overlap, the most confident one wins (``one_per_card``); a ``BACK`` inside
any box at least 1 / ``pip`` times its size goes (a pattern on a card, a pip); a box read as
``NONE`` goes. Always runs: after it, a card is read once.
"""
from __future__ import annotations

import numpy as np

from ..reading import NOT_A_CARD, Read, one_per_card
from ..refine import inside
from .context import Context


def step(image: np.ndarray, reads: list[Read], context: Context) -> list[Read]:
    boxes = [np.array(r.corners) for r in reads]
    pip = context.config.pip

    def pattern(r: Read) -> bool:
        c = np.array(r.corners)
        return r.card == "BACK" and any(inside(c, b, pip) for b in boxes)
    return one_per_card([r for r in reads if r.card != NOT_A_CARD and not pattern(r)])
