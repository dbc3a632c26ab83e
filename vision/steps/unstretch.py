"""Unstretch: a square image is often a camera's photo stretched to a square (labelling tools
export them so), which squeezes every card in it; it is also read stretched back to each of
``config.shapes`` (cameras' 3:4 and 9:16, either way up), and the shape whose readings at or
above the reader's ``sure`` level add up to the most confidence is kept (the image as it is when
none reads better), its boxes brought back to the image's pixels; when no shape reads a card that
sure, the same at the stated threshold (a dim frame whose cards read 0.5-0.6 in their camera's
shape and under 0.5 squeezed). One shape for the whole photo.
Each shape is read afresh with the steps ``passes`` to ``again`` (``TableReader.read_as_is``).
"""
from __future__ import annotations

import cv2
import numpy as np

from ..reading import Read, bounding_box
from .context import Context


def step(image: np.ndarray, reads: list[Read], context: Context) -> list[Read]:
    h, w = image.shape[:2]
    if not context.config.unstretch or h != w:
        return reads
    shaped = [reads]
    for fx, fy in context.config.shapes:
        big = cv2.resize(image, (round(w * fx), round(h * fy)), interpolation=cv2.INTER_CUBIC)
        shaped.append([squeezed(r, big.shape[1] / w, big.shape[0] / h, w, h) for r in context.read_afresh(big)])
    for level in (context.reader.sure, context.reader.threshold):
        scores = [weight(reading, level) for reading in shaped]
        if max(scores) > 0:          # the first shape of the most (the image as it is on a tie)
            return shaped[scores.index(max(scores))]
    return reads


def weight(reads: list[Read], threshold: float) -> float:
    """How well a reading of an image reads: its confidence at or above ``threshold``, added up,
    cards read beyond the image's edge left out (a shape is chosen by the cards it shows whole)."""
    return sum(r.confidence for r in reads if r.confidence >= threshold and not r.beyond)


def squeezed(r: Read, fx: float, fy: float, width: int, height: int) -> Read:
    """A reading of an image stretched by (fx, fy), in the unstretched image's pixels."""
    corners = np.asarray(r.corners, np.float64) / (fx, fy)
    a = np.radians(r.angle)
    angle = float(np.degrees(np.arctan2(np.sin(a) / fy, np.cos(a) / fx)))
    return Read(r.card, r.confidence, bounding_box(corners, width, height), corners.tolist(), angle,
                r.detector, r.alternatives, r.beyond)
