"""Crops shown to the detector alone, for the steps that look closer (``zoom``, ``again``)."""
from __future__ import annotations

import numpy as np

from ..detector import Detection
from ..reading import Look, iou, merged, patch
from .context import Context


def look_in(image: np.ndarray, found: list[Detection], crops: list[tuple[int, int, int, int]],
            context: Context, unchanged: list[Look] | None = None, kept: list[Look] | None = None) -> list[Detection]:
    """``found`` with what the detector finds in each crop alone, in the image's pixels, merged
    as passes are. ``unchanged`` (a live table): the crops looked at in the frame before whose
    patch of this image is unchanged; where one overlaps a crop by ``reuse_same``, what was
    found there then is kept and no detector runs for it. ``kept``: more of those whose
    findings are kept as they are (the ``again`` step). With ``unchanged`` given, this call's
    looks are remembered for the next frame (``memory.looked_before``)."""
    c = context.config
    remember = unchanged is not None
    seen = list(kept or [])
    for look in seen:
        found = merged(found, look.found)
    h, w = image.shape[:2]
    for crop in crops:
        x0, y0, x1, y1 = crop
        if crop == (0, 0, w, h) and (1.0, False) in c.passes:
            continue                        # the whole image, as the first pass saw it: nothing new
        before = next((b for b in unchanged if iou(b.crop, crop) >= c.reuse_same), None) if remember else None
        if before is None:
            shift = np.float32([x0, y0])
            box = np.array(crop, np.float32)
            before = Look(box, patch(image, box, c.signature),
                          [Detection(d.kind, d.score, d.corners + shift, d.angle)
                           for d in context.detector(image[y0:y1, x0:x1], context.threshold, fill=1.0, contrast=False)])
        seen.append(before)
        found = merged(found, before.found)
    if remember:
        context.memory.looked_before = seen
    return found
