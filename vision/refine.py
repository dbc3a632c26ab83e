"""Snap a detected card's oriented box to the card's own edges.

The detector's oriented box is only roughly placed (its angle and size are a few degrees and pixels
off), which is enough to find a card but not to cut its corner index out. Cards are bright, pale
paper: around the detection, the pixels brighter than Otsu's threshold and not strongly coloured
form a blob; the card is the blob whose centre lies inside the detection and whose area is close to
the detection's, and that does not hold the middle of another detection lying outside this one
(two overlapping cards run together into one blob). Its minimum-area rectangle replaces the box.
Where no such blob exists (a white table, cards fanned into one blob), the detector's box is kept.
Plain OpenCV: no learning needed.
"""
from __future__ import annotations

import cv2
import numpy as np

GROW = 0.5                  # search window: the detection's bounding box grown by this share per side
AREA_RANGE = (0.4, 2.5)    # accepted blob area, as a multiple of the detection's area
FILL = 0.7                  # a card is a filled rectangle: its blob covers this share of its rectangle


def refine(image: np.ndarray, corners: np.ndarray, others: list[np.ndarray] = ()) -> tuple[np.ndarray, bool]:
    """Corners snapped to the card's edges, and whether they were (else the input corners).
    ``others``: the other boxes found in the image; a blob that holds the middle of one of them
    lying outside this box is two cards run together, not this card."""
    corners = np.asarray(corners, np.float32)
    H, W = image.shape[:2]
    x0, y0 = corners.min(0)
    x1, y1 = corners.max(0)
    gx, gy = (x1 - x0) * GROW, (y1 - y0) * GROW
    X0, Y0 = int(max(0, x0 - gx)), int(max(0, y0 - gy))
    X1, Y1 = int(min(W, x1 + gx)), int(min(H, y1 + gy))
    if X1 - X0 < 12 or Y1 - Y0 < 12:
        return corners, False
    window = image[Y0:Y1, X0:X1]
    hsv = cv2.cvtColor(window, cv2.COLOR_BGR2HSV)
    value = cv2.GaussianBlur(hsv[..., 2], (5, 5), 0)
    level, bright = cv2.threshold(value, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    pale = (hsv[..., 1] < 90).astype(np.uint8) * 255
    paper = cv2.bitwise_and(bright, pale)
    k = max(3, int(min(window.shape[:2]) * 0.06) | 1)
    paper = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    paper = cv2.morphologyEx(paper, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area = cv2.contourArea(corners)
    local = (corners - (X0, Y0)).astype(np.float32)
    best, best_gap = None, None
    middles = [np.asarray(o, np.float32).reshape(4, 2).mean(0) for o in others]
    apart = [m for m in middles if cv2.pointPolygonTest(corners.reshape(-1, 1, 2), (float(m[0]), float(m[1])), False) < 0]
    for c in contours:
        rect = cv2.minAreaRect(c)
        (cx, cy), (w, h), _ = rect
        if not (AREA_RANGE[0] * area <= w * h <= AREA_RANGE[1] * area):
            continue
        if cv2.pointPolygonTest(local.reshape(-1, 1, 2), (float(cx), float(cy)), False) < 0:
            continue
        if cv2.contourArea(c) < FILL * w * h:            # a card is a filled rectangle, not an L or a fan
            continue
        if any(cv2.pointPolygonTest(c, (float(x - X0), float(y - Y0)), False) > 0 for x, y in apart):
            continue
        gap = abs(w * h - area)
        if best is None or gap < best_gap:
            best, best_gap = rect, gap
    if best is None:
        return corners, False
    return (cv2.boxPoints(best) + (X0, Y0)).astype(np.float32), True


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quadrilaterals."""
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    union = cv2.contourArea(np.asarray(a, np.float32)) + cv2.contourArea(np.asarray(b, np.float32)) - inter
    return float(inter / union) if union > 0 else 0.0


def shared(a: np.ndarray, b: np.ndarray) -> float:
    """The share of the smaller of two convex quadrilaterals that lies in the other."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    smaller = min(cv2.contourArea(a), cv2.contourArea(b))
    if smaller <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter / smaller)


def inside(small: np.ndarray, big: np.ndarray, share: float = 0.5) -> bool:
    """Whether ``small`` lies (80% or more) within ``big`` and is at most ``share`` of its size."""
    a, b = np.asarray(small, np.float32), np.asarray(big, np.float32)
    area_a, area_b = cv2.contourArea(a), cv2.contourArea(b)
    if area_a <= 0 or area_a > share * area_b:
        return False
    inter, _ = cv2.intersectConvexConvex(a, b)
    return inter >= 0.8 * area_a
