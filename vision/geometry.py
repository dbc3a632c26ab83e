"""From a card's oriented box to what the reader looks at.

The detector gives four corners of a card's visible area. ``portrait`` orders them clockwise
(image coordinates) starting at a corner whose next edge is a short one, so the card stands upright
or upside down; both read the same, because every deck prints its corner index at the top left
and again, turned half a circle, at the bottom right. ``index_view`` rectifies the card and puts
the two corner regions side by side (the bottom-right one turned upright): a small square image
that holds the card's identity twice, so one covered corner still leaves it readable.
"""
from __future__ import annotations

import cv2
import numpy as np

from .profiles import BUILT_IN

CARD_SIZE = (200, 280)                 # rectified card, width x height (5:7)
VIEW_SIZE = 96                          # the index view is VIEW_SIZE x VIEW_SIZE
# the corner region each deck prints its index in, by deck: its profile's ``corner`` (vision/profiles.py)
CORNER = {name: p.corner for name, p in BUILT_IN.items()}
SQUARISH = 1.2      # a box whose long sides are less than this many times its short ones is read both ways up


def portrait(corners, flip: bool = False) -> np.ndarray:
    """The four corners clockwise from one that starts a short edge (``flip``: the other such corner)."""
    p = np.asarray(corners, np.float32).reshape(4, 2)
    centre = p.mean(0)
    angles = np.arctan2(p[:, 1] - centre[1], p[:, 0] - centre[0])
    p = p[np.argsort(angles)]                      # clockwise on screen (y points down)
    edges = np.linalg.norm(p - np.roll(p, -1, 0), axis=1)
    start = 0 if edges[0] + edges[2] <= edges[1] + edges[3] else 1
    if flip:
        start += 2
    return np.roll(p, -start, 0)


def oriented(corners, flip: bool = False, sideways: bool = False) -> np.ndarray:
    """``portrait`` corners, or with ``sideways`` starting one corner on (a long edge taken as the
    top: the other way up of a near-square box, whose short edge is unsure)."""
    ordered = portrait(corners, flip)
    return np.roll(ordered, -1, 0) if sideways else ordered


def squarish(corners) -> bool:
    """Whether a box is too close to square to tell its short edge (``SQUARISH``): a stretched
    photo, a card cut by the frame's edge, a card seen steeply from its short end."""
    edges = np.linalg.norm(np.asarray(corners) - np.roll(corners, -1, 0), axis=1)
    sides = (edges[0] + edges[2], edges[1] + edges[3])
    return bool(max(sides) < SQUARISH * min(sides))


def rectify(image: np.ndarray, corners, part: tuple[int, int] | None = None) -> np.ndarray:
    """The card warped flat to CARD_SIZE from four ordered corners (``part``: only its top-left
    width x height pixels of that, the same pixels, warped alone)."""
    w, h = CARD_SIZE
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    M = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    return cv2.warpPerspective(image, M, part or (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def corners_of(card: np.ndarray, deck: str) -> tuple[np.ndarray, np.ndarray]:
    """The top-left index region and the bottom-right one turned upright."""
    h, w = card.shape[:2]
    fx, fy = CORNER[deck]
    cw, ch = round(w * fx), round(h * fy)
    return card[:ch, :cw], cv2.rotate(card[h - ch:, w - cw:], cv2.ROTATE_180)


def _square(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return cv2.resize(np.hstack([left, right]), (VIEW_SIZE, VIEW_SIZE), interpolation=cv2.INTER_AREA)


def index_view(card: np.ndarray, deck: str) -> np.ndarray:
    """Top-left corner beside the bottom-right one turned upright, as a VIEW_SIZE square."""
    return _square(*corners_of(card, deck))


def corner_views(image: np.ndarray, corners, deck: str, sideways: bool = False) -> list[np.ndarray]:
    """Each corner index alone, shown twice side by side (the top-left one, then the bottom-right
    one turned upright): the same layout as ``index_view``, so one reader reads both kinds. A corner
    covered by another card then spoils only its own view; the reader averages the two.
    ``sideways``: take a long edge as the top (for a near-square box, whose short edge is unsure)."""
    top_left, bottom_right = corners_of(rectify(image, oriented(corners, sideways=sideways)), deck)
    return [_square(top_left, top_left), _square(bottom_right, bottom_right)]


def corner_view(image: np.ndarray, corners, deck: str) -> np.ndarray:
    """The top-left corner index of the card with these corners, given top-left first and
    clockwise (not reordered: the card's way up is known), shown twice side by side as in
    ``corner_views``. Only that corner is warped."""
    w, h = CARD_SIZE
    fx, fy = CORNER[deck]
    top_left = rectify(image, corners, (round(w * fx), round(h * fy)))
    return _square(top_left, top_left)


def face_view(image: np.ndarray, corners, deck: str, flip: bool = False, sideways: bool = False) -> np.ndarray:
    """The whole card flattened and squeezed to a VIEW_SIZE square (``deck`` unused: the same
    call as ``view_of``): what a face reader reads, the card's large central numeral and colour,
    which stay legible on a card too small for its corner index."""
    card = rectify(image, oriented(corners, flip, sideways))
    return cv2.resize(card, (VIEW_SIZE, VIEW_SIZE), interpolation=cv2.INTER_AREA)


def view_of(image: np.ndarray, corners, deck: str, flip: bool = False, sideways: bool = False) -> np.ndarray:
    """The index view of the card with these (unordered) corners in ``image`` (``sideways``: as in
    ``corner_views``)."""
    return index_view(rectify(image, oriented(corners, flip, sideways)), deck)
