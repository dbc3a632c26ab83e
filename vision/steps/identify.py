"""Identify: each of the detector's boxes read by the deck's reader (``TableReader.identify``: the
corner indices flattened from the full-resolution image, and the face with a face reader), its
confidence the reader's probability times the box's score to ``box_power``. A box unchanged since
it was read before (``context.pool``) keeps that reading. The phase ``read``: boxes in, readings out.
"""
from __future__ import annotations

import numpy as np

from ..reading import Read
from .context import Context


def step(image: np.ndarray, found: list, context: Context) -> list[Read]:
    return context.identify(image, found)
