"""Labelled boxes whose own edges show in the pixels: an export's box-level augmentation.

A labelling tool's export can change the pixels inside each labelled box (brightness, a shift, a
shear) after drawing the labels, which leaves a step in brightness exactly along the box's edges:
a frame around every corner index that no real card has, on the part of the card the reader reads.
``edge_step`` measures it for one box: how much brighter the change across an edge (within a pixel
of it) is than the change 3-4 pixels either side, for the box's second-strongest edge (a shifted or
rescaled patch shows on two edges at least; one strong edge alone is often the card's own edge).
Meant for boxes drawn inside a card (corner indices): a whole-card box (``edje/``) lies on the card's
own edges, which step too (13% of ``edje/``'s boxes, though its photos are untouched).

    python -m vision.lab.box_edges            # every real set: the share of boxes with a step

Measured 2026-12-07 (models/journal/2026-12-07-handheld-boxes.md): ``handheld/`` 75% of its index
boxes over 2, ``phone/`` 2% (the same dataset's phone photos, exported without it).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from .realcards import DEFAULT_ROOT, SETS, load

STEP = 2.0          # a box whose second-strongest edge steps this many times its surroundings shows
MARGIN = 6          # boxes this near the image's edge are left out (no pixels outside to compare)


def edge_step(grey: np.ndarray, box) -> float | None:
    """The second-strongest of a box's four edge steps (``None``: too small or too near the image's
    edge to measure). ``box``: x0, y0, x1, y1 in pixels; ``grey``: float32, one channel."""
    h, w = grey.shape
    x0, y0, x1, y1 = (round(v) for v in box)
    if x0 < MARGIN or y0 < MARGIN or x1 > w - MARGIN or y1 > h - MARGIN or x1 - x0 < 8 or y1 - y0 < 8:
        return None
    along_x, along_y = slice(x0 + 2, x1 - 2), slice(y0 + 2, y1 - 2)

    def change(edge: str, at: int) -> float:
        """The mean change in brightness between the row (column) ``at`` and the one before it."""
        if edge in ("top", "bottom"):
            return float(np.abs(grey[at, along_x] - grey[at - 1, along_x]).mean())
        return float(np.abs(grey[along_y, at] - grey[along_y, at - 1]).mean())

    steps = []
    for edge, at in (("top", y0), ("bottom", y1), ("left", x0), ("right", x1)):
        on = max(change(edge, at + k) for k in (-1, 0, 1))
        around = np.mean([change(edge, at + k) for k in (-4, -3, 3, 4)])
        steps.append(on / (around + 1))         # + 1: a flat surrounding is not a division by 0
    return sorted(steps)[-2]


def steps_of(name: str, root: Path | None = None) -> list[float]:
    """``edge_step`` of every labelled box of a real set that can be measured."""
    out = []
    for photo in load(name, root):
        grey = cv2.cvtColor(cv2.imread(str(photo.path)), cv2.COLOR_BGR2GRAY).astype(np.float32)
        out += [s for label in photo.labels if (s := edge_step(grey, label.box)) is not None]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m vision.lab.box_edges", description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the folder holding the labelled sets")
    parser.add_argument("--sets", default=",".join(SETS), help="sets to measure (default: %(default)s)")
    args = parser.parse_args(argv)
    for name in args.sets.split(","):
        s = np.array(steps_of(name, args.root))
        print(f"{name}: {len(s)} boxes measured; step median {np.median(s):.2f}; "
              f"share with a step (over {STEP:g}) {(s > STEP).mean():.2f}")


if __name__ == "__main__":
    main()
