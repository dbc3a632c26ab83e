"""One card's photo made flat: the card alone (a scan, a photo cut to the card) or a card lying on
a table, found and warped to the card art's size (``vision.art.CARD_W`` x ``CARD_H``, upright or
upside down: both read the same).

- A picture shaped like a card (long side 1.2-1.85 times the short one: poker cards are 1.40,
  bridge 1.56, tarot 1.71) is the card itself, unless it has the exact shape of most cameras'
  photos (5:4, 4:3, 16:9). A 3:2 or 16:10 picture is taken as the card: cards are often cut out
  to those shapes (400x600), and a camera's photo of a table in them must be cropped to the card.
- Any other is searched for card-shaped quadrilaterals: the outlines OpenCV finds in its edges
  and in its light and dark halves (a pale card on a dark table or the other way round), whose
  inside differs from the table around it (``STANDS_OUT``); where
  none is found, the detector's boxes when a detector is given (they find cards whose edges are
  soft, but fit them looser than an outline does). Outlines inside another are a card's own print
  and are left out. One card found: flattened; none, or two of
  about the same size: a clear error.
"""
from __future__ import annotations

import cv2
import numpy as np

from referee.say import say

from .art import CARD_H, CARD_W
from .errors import BadImage
from .geometry import portrait

CARD_SHAPED = (1.2, 1.85)    # a picture whose sides are in this ratio is taken as the card alone ...
CAMERA = {"5:4": 5 / 4, "4:3": 4 / 3, "16:9": 16 / 9}
CAMERA_SLACK = 0.005         # ... unless it is within this share of a camera's frame: then searched
ASPECT = (1.2, 1.8)          # a quadrilateral's sides in this ratio may be a card (seen at a slant)
SMALLEST = 0.02              # ... if it covers at least this share of the picture
LARGEST = 0.97               # ... and no more than this (the picture's own frame)
SQUARE = 0.82                # ... and fills this much of its rotated rectangle
ALIKE = 0.5                  # two cards: a second one at least this share of the first's area
STANDS_OUT = 15              # a card's paper differs from the table around it by this many grey levels


class NoCard(BadImage):
    """No card was found in a photo."""


class TwoCards(BadImage):
    """A photo meant to show one card shows more."""


def camera_shape(image: np.ndarray) -> str | None:
    """The camera frame (``CAMERA``'s name) ``image`` is shaped like, if any."""
    h, w = image.shape[:2]
    ratio = max(h, w) / max(1, min(h, w))
    return next((name for name, r in CAMERA.items() if abs(ratio / r - 1) <= CAMERA_SLACK), None)


def card_shaped(image: np.ndarray) -> bool:
    """Whether ``image`` is taken as the card alone (see the module's text)."""
    h, w = image.shape[:2]
    ratio = max(h, w) / max(1, min(h, w))
    return CARD_SHAPED[0] <= ratio <= CARD_SHAPED[1] and camera_shape(image) is None


def upright(image: np.ndarray) -> np.ndarray:
    """A card-shaped picture as the card at art size, turned to stand on its short side."""
    h, w = image.shape[:2]
    card = image if h >= w else cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    return cv2.resize(card, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)


def stands_out(grey: np.ndarray, quad: np.ndarray) -> bool:
    """Whether the inside of ``quad`` differs from a ring around it (a card on a table, not a blob
    of the table's own texture)."""
    inside = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(inside, quad.astype(np.int32), 1)
    ring = cv2.dilate(inside, np.ones((15, 15), np.uint8)) - inside
    if not inside.any() or not ring.any():
        return False
    return abs(float(grey[inside > 0].mean()) - float(grey[ring > 0].mean())) >= STANDS_OUT


def _quads(mask: np.ndarray, area: float, grey: np.ndarray) -> list[np.ndarray]:
    """Card-shaped outlines of a binary picture's shapes that stand out from what is around them."""
    out = []
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        hull = cv2.convexHull(c)
        a = cv2.contourArea(hull)
        if not SMALLEST * area <= a <= LARGEST * area:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull)
        if min(rw, rh) < 1 or a < SQUARE * rw * rh:
            continue
        if not ASPECT[0] <= max(rw, rh) / min(rw, rh) <= ASPECT[1]:
            continue
        approx = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
        quad = approx.reshape(-1, 2) if len(approx) == 4 else cv2.boxPoints(((cx, cy), (rw, rh), angle))
        quad = np.asarray(quad, np.float32)
        if stands_out(grey, quad):
            out.append(quad)
    return out


def candidates(image: np.ndarray, detector=None) -> list[np.ndarray]:
    """Every card-shaped quadrilateral found in ``image`` (see the module's text), outermost only."""
    h, w = image.shape[:2]
    scale = min(1.0, 1000 / max(h, w))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    area = float(grey.shape[0] * grey.shape[1])
    middle = float(np.median(grey))
    edges = cv2.Canny(grey, int(max(0, 0.66 * middle)), int(min(255, 1.33 * middle) + 20))
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    _, light = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    found = []
    for mask in (edges, light, 255 - light):
        found += [q / scale for q in _quads(mask, area, grey)]
    if detector is not None and not found:
        for d in detector(image, threshold=0.3):
            q = np.asarray(d.corners, np.float32)
            a = cv2.contourArea(q)
            if SMALLEST * h * w <= a <= LARGEST * h * w:
                found.append(q)
    found.sort(key=lambda q: -cv2.contourArea(q))
    kept: list[np.ndarray] = []
    for q in found:
        centre = tuple(float(v) for v in q.mean(0))
        if any(cv2.pointPolygonTest(k.reshape(-1, 1, 2), centre, False) >= 0 for k in kept):
            continue                       # inside a card already found: its print, or the same card
        kept.append(q)
    return kept


def flatten(image: np.ndarray, detector=None, name: str = "photo") -> np.ndarray:
    """The one card in ``image`` flat at art size (BGR); ``NoCard`` or ``TwoCards`` naming ``name``."""
    if card_shaped(image):
        return upright(image)
    return warp(image, one_card(image, detector, name))


def one_card(image: np.ndarray, detector=None, name: str = "photo") -> np.ndarray:
    """The outline of the one card lying in ``image`` (four corners, a camera frame or a photo of a
    table: never the whole picture); ``NoCard`` or ``TwoCards`` naming ``name``."""
    quads = candidates(image, detector)
    camera = camera_shape(image)
    if not quads:
        raise NoCard(say("{file}: no card found (photograph one card on a plain table, or crop the photo to the "
                         "card) (a picture shaped {shape} is taken for a camera's photo of a table; a card cut out "
                         "of a photo should be cut at the card's edge)", file=name, shape=camera) if camera else
                     say("{file}: no card found (photograph one card on a plain table, or crop the photo to the "
                         "card)", file=name))
    largest = cv2.contourArea(quads[0])
    alike = [q for q in quads if cv2.contourArea(q) >= ALIKE * largest]
    if len(alike) > 1:
        raise TwoCards(say("{file}: {n} cards found; photograph one card at a time (a picture shaped {shape} is "
                           "taken for a camera's photo of a table; a card cut out of a photo should be cut at the "
                           "card's edge)", file=name, n=len(alike), shape=camera) if camera else
                       say("{file}: {n} cards found; photograph one card at a time", file=name, n=len(alike)))
    return quads[0]


def warp(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card boxed by ``quad`` flat at art size."""
    dst = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    M = cv2.getPerspectiveTransform(portrait(quad), dst)
    return cv2.warpPerspective(image, M, (CARD_W, CARD_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


INDEX_SHARE = (6, 40)        # a card is this many times the area of a box around its corner index


def holding(image: np.ndarray, boxes: list[tuple[float, float, float, float]], detector=None) -> np.ndarray | None:
    """The card whose outline (or detector box) holds the most of ``boxes`` (a labelled photo's
    corner indices of one card, x0, y0, x1, y1) and is the size a card with such indices has
    (``INDEX_SHARE``), flat at art size; None if there is none."""
    quads = candidates(image)
    if detector is not None:
        quads += [np.asarray(d.corners, np.float32) for d in detector(image, threshold=0.2)]
    index = float(np.mean([(x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes]))
    best, key = None, None
    for q in quads:
        ratio = cv2.contourArea(q) / max(index, 1.0)
        if not INDEX_SHARE[0] <= ratio <= INDEX_SHARE[1]:
            continue
        held = sum(cv2.pointPolygonTest(q.reshape(-1, 1, 2), ((x0 + x1) / 2, (y0 + y1) / 2), False) >= 0
                   for x0, y0, x1, y1 in boxes)
        if held and (key is None or (held, -abs(np.log(ratio / 15))) > key):
            best, key = q, (held, -abs(np.log(ratio / 15)))
    return None if best is None else warp(image, best)
