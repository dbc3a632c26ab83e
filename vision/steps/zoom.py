"""Zoom: a photo's surest cards looked at close up, so a card that is a few pixels of the whole
photo fills the detector's input (a fan of cards that the whole photo shows as one comes apart).

The area around each of the ``config.zoom`` surest face-up boxes (scored ``zoom_from`` or more),
``zoom_margin`` of its longer side beyond it on every side, is cropped and shown to the detector
alone; a box inside a crop already looked at gets none of its own. A ``boxes`` step: returns the
detector's boxes with what the crops found, merged as passes are.
"""
from __future__ import annotations

import numpy as np

from ..reading import crops
from .context import Context
from .looks import look_in


def step(image: np.ndarray, found: list, context: Context) -> list:
    c = context.config
    if not c.zoom:
        return found
    surest = [d.corners for d in sorted(found, key=lambda d: -d.score) if d.kind == "card" and d.score >= c.zoom_from]
    return look_in(image, found, crops(surest, c.zoom, c.zoom_margin, image.shape), context)
