"""A reading of a card (``Read``) and the small geometry the reader and its steps share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import cv2
import numpy as np

from .detector import Detection
from .refine import inside, overlap, shared

NOT_A_CARD = "NONE"   # a reader class for boxes that hold no card (a pip, a picture, the table)


@dataclass
class Read:
    card: str                       # a deck code, or "BACK"
    confidence: float
    box: list[int]                  # x0, y0, x1, y1 in pixels
    corners: list[list[float]]
    angle: float
    detector: float                 # the detector's own score
    alternatives: list[tuple[str, float]] = field(default_factory=list)   # next best readings
    beyond: bool = False            # read as a card that reaches beyond the image's edge (``cut``)

    def as_json(self) -> dict:
        return {"card": self.card, "confidence": round(self.confidence, 4), "box": self.box,
                "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners], "angle": round(self.angle, 1),
                "detector": round(self.detector, 4),
                "alternatives": [[c, round(p, 4)] for c, p in self.alternatives]}


class Look(NamedTuple):
    """A crop the detector looked at alone (``steps.looks.look_in``): its box in the image, the
    image's patch there (to tell next frame whether it changed) and what the detector found in it."""
    crop: np.ndarray
    patch: np.ndarray
    found: list[Detection]


class Remembered(NamedTuple):
    """A box read before, kept so that the same box unchanged keeps its reading
    (``TableReader._probabilities_reusing``): its bounding box and patch (None unless a live table
    compares them), its card probabilities and its corners."""
    box: np.ndarray | None
    signature: np.ndarray | None
    probabilities: np.ndarray | None
    quad: np.ndarray


@dataclass
class Memory:
    """What a reader keeps between readings: a live table's from one frame to the next
    (``reuse``), and an image's from its first reading to its look again (``again``)."""
    read_before: list[Remembered] = field(default_factory=list)   # the frame before's readings
    looked_before: list[Look] = field(default_factory=list)       # the frame before's crops looked at
    last_read: list[Remembered] = field(default_factory=list)     # the last ``identify``'s readings


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Overlap of two boxes (x0, y0, x1, y1): intersection over union."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def bounding_box(corners: np.ndarray, width: int, height: int) -> list[int]:
    """x0, y0, x1, y1: whole pixels around the corners, within the image."""
    x0, y0 = np.floor(np.asarray(corners).min(0))
    x1, y1 = np.ceil(np.asarray(corners).max(0))
    return [int(max(0, x0)), int(max(0, y0)), int(min(width, x1)), int(min(height, y1))]


def merged(found: list[Detection], new: list[Detection]) -> list[Detection]:
    """``found`` with ``new`` detections of the same image added: where two overlap by 0.6 or
    more they are one card, and the surer box stays."""
    found = list(found)
    for d in new:
        if all(overlap(d.corners, e.corners) < 0.6 for e in found if e.score >= d.score):
            found = [e for e in found if e.score >= d.score or overlap(d.corners, e.corners) < 0.6]
            found.append(d)
    return found


def crops(quads: list[np.ndarray], limit: int, margin: float, shape) -> list[tuple[int, int, int, int]]:
    """Crops (x0, y0, x1, y1) of an image of ``shape`` around the first ``limit`` of ``quads`` (in
    their order), ``margin`` of each one's longer side beyond it on every side; a quad inside a
    crop already made gets none of its own."""
    h, w = shape[:2]
    out: list[tuple[int, int, int, int]] = []
    for q in quads:
        if len(out) == limit:
            break
        lo, hi = q.min(0), q.max(0)
        if any(x0 <= lo[0] and y0 <= lo[1] and hi[0] <= x1 and hi[1] <= y1 for x0, y0, x1, y1 in out):
            continue
        m = margin * float((hi - lo).max())
        x0, y0, x1, y1 = bounding_box(np.array([lo - m, hi + m]), w, h)
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            out.append((x0, y0, x1, y1))
    return out


def patch(image: np.ndarray, box: np.ndarray, size: int) -> np.ndarray:
    """A box's (x0, y0, x1, y1) patch of the image, grey, shrunk to ``size`` pixels square: what a
    live table compares to tell whether something changed there."""
    x0, y0 = np.maximum(np.floor(box[:2]).astype(int), 0)
    x1, y1 = np.ceil(box[2:]).astype(int)
    crop = image[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)]
    if crop.size and crop.ndim == 3:          # grey, only the box (not the whole frame)
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    return cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) \
        if crop.size else np.zeros((size, size), np.float32)


def holds_point(r: Read, point: np.ndarray) -> bool:
    """Whether ``r``'s box (its corners) holds ``point``."""
    corners = np.asarray(r.corners, dtype=np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(corners, (float(point[0]), float(point[1])), False) >= 0


def angle_of(corners: np.ndarray) -> float:
    """A card's angle in degrees from its corners, top-left first: 0 upright, its left edge's way
    down turned from straight down."""
    down = corners[3] - corners[0]
    return float(np.degrees(np.arctan2(down[1], down[0]))) - 90


def past_edge(corners: np.ndarray, width: int, height: int) -> bool:
    """Whether a quadrilateral reaches beyond a ``width`` x ``height`` image (by more than a pixel)."""
    return bool((corners.min(0) < -1).any() or (corners.max(0) > (width + 1, height + 1)).any())


def one_per_card(reads: list[Read]) -> list[Read]:
    """The most confident reading first; one whose box overlaps a kept one by half or more, or lies
    inside one at most half its size, or shares half of the smaller box or more with one read as
    the same card (either inside the other, whatever their sizes, or across it), goes: the same card
    read twice (a second box over part of it, or over it and the table or cards around it), or a
    picture on a card."""
    kept: list[Read] = []
    for r in sorted(reads, key=lambda r: -r.confidence):
        c = np.array(r.corners)
        if all(overlap(c, k) < 0.5 and not inside(c, k, 0.5) and not (same and shared(c, k) >= 0.5)
               for k, same in ((np.array(k.corners), k.card == r.card) for k in kept)):
            kept.append(r)
    return kept
