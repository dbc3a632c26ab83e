"""Passes: the detector over the whole image once per ``config.passes`` pair (fill, contrast): the
image as it is; a photo's two more at 40% of the input (cards that fill a close-up), one with its
local contrast raised. A card found by several passes is one box, the surest (``merged``).
"""
from __future__ import annotations

import numpy as np

from ..reading import merged
from .context import Context


def step(image: np.ndarray, found: list, context: Context) -> list:
    for fill, contrast in context.config.passes:
        found = merged(found, context.detector(image, context.threshold, fill=fill, contrast=contrast))
    return found
