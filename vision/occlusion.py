"""Cards that others cover: a hand laid down in an overlapping row shows a strip of each card but
the last. The detector boxes what shows of a card (as its training labels do), so a covered card's
box is a strip, and a strip cut out and flattened as if it were a whole card puts its corner
regions in the wrong place. ``whole_cards`` gives the card a strip is part of (its box widened to
a card's shape under the cards that cover it) and ``showing_corner`` which of that card's two
index corners lies in the strip, so the reader can read that corner alone.

A photo's edge hides the rest of a card the same way (``outside``: the area beyond the frame, a
cover like any other): along a card's length it leaves a strip (``whole_cards``), across it a
shorter card, or nearer the index a piece wider than long (``cut_cards``). The reader counts it
as a cover only when told to (``TableReader``'s ``cut``).

Plain geometry on the boxes the detector found: nothing is learned here.
"""
from __future__ import annotations

import cv2
import numpy as np

from .geometry import CARD_SIZE, CORNER, oriented, portrait

CARD_RATIO = CARD_SIZE[0] / CARD_SIZE[1]   # a card's width over its height (5:7; a poker card is 0.716)
STRIP = 0.55       # a box narrower than this share of its length is a strip: no whole card is that narrow
COVERED = 0.6      # the part a strip is widened by must lie this much under other cards' boxes
SHOWING = 0.8      # an index corner shows when this share of its region lies inside the strip
AT_EDGE = 0.9      # a piece wider than long is lengthened only where this share of the added part is beyond the edge
BEYOND = 1e5       # how far past the frame's edges ``outside`` reaches, in pixels
RASTER = 200       # pixels along the longer side when measuring how much of a region is covered


def covered(region: np.ndarray, others: list[np.ndarray]) -> float:
    """The share of the quadrilateral ``region`` that lies under the union of ``others``."""
    region = np.asarray(region, np.float32).reshape(4, 2)
    lo = np.floor(region.min(0))
    size = np.ceil(region.max(0)) - lo
    if cv2.contourArea(region) <= 0 or size.min() < 1:
        return 0.0
    s = RASTER / size.max()
    w, h = int(size[0] * s) + 2, int(size[1] * s) + 2
    mine, theirs = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
    cv2.fillPoly(mine, [np.round((region - lo) * s).astype(np.int32)], 1)
    for quad in others:
        cv2.fillPoly(theirs, [np.round((np.asarray(quad, np.float32).reshape(4, 2) - lo) * s).astype(np.int32)], 1)
    return float((mine & theirs).sum() / max(int(mine.sum()), 1))


def whole_cards(strip: np.ndarray, others: list[np.ndarray]) -> list[np.ndarray]:
    """The whole cards a strip (a box narrower than ``STRIP``) can be part of: its box widened
    across its short side to a card's shape, to one side or the other, its long side taken as the
    card's height or as its width (a row slid along the cards' width or their length), wherever
    the added part lies at least ``COVERED`` under ``others`` (the cards that hide it). Empty for
    a box that is not a strip, or that nothing covers."""
    p = portrait(strip)                         # p0 -> p1 a short side, p1 -> p2 a long one
    short, long = float(np.linalg.norm(p[1] - p[0])), float(np.linalg.norm(p[2] - p[1]))
    if short < 2 or short >= STRIP * long:
        return []
    across = (p[1] - p[0]) / short
    return [card for target in (long * CARD_RATIO, long / CARD_RATIO)
            for card in _grown(p, (1, 2), (3, 0), across * (target - short), others)]


def _grown(p: np.ndarray, front: tuple[int, int], back: tuple[int, int], add: np.ndarray,
           others: list[np.ndarray], share: float = COVERED) -> list[np.ndarray]:
    """The box ``p`` grown by ``add``: its ``front`` side (two corner indices) pushed forward, or its
    ``back`` side pushed back, each kept where the part it adds lies at least ``share`` under
    ``others``."""
    out = []
    for side, step in ((front, add), (back, -add)):
        full = np.array(p, np.float32)
        full[list(side)] += step
        if covered(np.array([p[side[0]], full[side[0]], full[side[1]], p[side[1]]]), others) >= share:
            out.append(full)
    return out


def outside(width: int, height: int) -> list[np.ndarray]:
    """The area beyond a ``width`` x ``height`` frame's edges, as four boxes: a cover for
    ``whole_cards`` and ``cut_cards`` (a card cut by the photo's edge shows only a part)."""
    w, h, b = float(width), float(height), BEYOND
    return [np.array(q, np.float32) for q in (
        [[-b, -b], [w + b, -b], [w + b, 0], [-b, 0]], [[-b, h], [w + b, h], [w + b, h + b], [-b, h + b]],
        [[-b, 0], [0, 0], [0, h], [-b, h]], [[w, 0], [w + b, 0], [w + b, h], [w, h]])]


def cut_cards(box: np.ndarray, beyond: list[np.ndarray]) -> list[np.ndarray]:
    """The whole cards a box cut across a card's length by the image's edge can be part of
    (``beyond``: ``outside``), wherever the part added lies beyond the edge:
    - a box shorter than a card of its width: its long sides lengthened to a card's shape, its
      short side taken as the card's width (the part added at least ``COVERED`` beyond the edge);
    - a piece wider than long but not a strip (cut across the card nearer its index, so that what
      shows is shorter than the card is wide): its short sides lengthened to a card's length, its
      long side taken as the card's width, only when the box reaches the edge (the part added at
      least ``AT_EDGE`` beyond it: a whole card or a fan near the edge is not a piece of one).
    Empty when the box is a card's length or longer. A card cut along its length is a strip, which
    ``whole_cards`` widens, with the area beyond the edge among its covers."""
    p = portrait(box)                            # p0 -> p1 a short side, p1 -> p2 a long one
    short, long = float(np.linalg.norm(p[1] - p[0])), float(np.linalg.norm(p[2] - p[1]))
    if short < 2:
        return []
    out = []
    if short / CARD_RATIO > long * 1.05:
        out += _grown(p, (2, 3), (0, 1), (p[2] - p[1]) / long * (short / CARD_RATIO - long), beyond)
    if short >= STRIP * long:
        out += _grown(p, (1, 2), (3, 0), (p[1] - p[0]) / short * (long / CARD_RATIO - short), beyond, AT_EDGE)
    return out


def index_regions(card: np.ndarray, deck: str) -> tuple[np.ndarray, np.ndarray]:
    """A card's two index regions in the image, as four corners each (``geometry.corner_views``
    order: top-left, then bottom-right)."""
    o = oriented(card)
    fx, fy = CORNER[deck]

    def at(x: float, y: float) -> np.ndarray:
        top, bottom = o[0] + (o[1] - o[0]) * x, o[3] + (o[2] - o[3]) * x
        return top + (bottom - top) * y
    return (np.array([at(0, 0), at(fx, 0), at(fx, fy), at(0, fy)], np.float32),
            np.array([at(1 - fx, 1 - fy), at(1, 1 - fy), at(1, 1), at(1 - fx, 1)], np.float32))


def corner_centres(card: np.ndarray, deck: str) -> tuple[np.ndarray, np.ndarray]:
    """Where the middles of a card's two index regions lie in the image (top-left, bottom-right)."""
    top_left, bottom_right = index_regions(card, deck)
    return top_left.mean(0), bottom_right.mean(0)


def showing_corner(card: np.ndarray, strip: np.ndarray, deck: str) -> int | None:
    """Which of a widened card's index corners (0 top-left, 1 bottom-right, as ``corner_views``
    cuts them) shows in the strip: its middle inside the strip and, in all, at least ``SHOWING``
    of its region (an index cut by the photo's edge or half under the next card is not read from).
    None if both or neither do."""
    poly = np.asarray(strip, np.float32).reshape(-1, 1, 2)
    shows = [cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0 and covered(region, [strip]) >= SHOWING
             for region, (x, y) in zip(index_regions(card, deck), corner_centres(card, deck))]
    return shows.index(True) if shows.count(True) == 1 else None
