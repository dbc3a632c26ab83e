"""Indices: cards found by their corner index alone (``vision.indices``), for a card whose edges
the detector does not see (white on white, glare, mostly beyond the photo's edge). For a deck whose
index layout ``vision.indices`` knows (its profile's ``index_alone``): the standard deck.

Each index found is as sure as a box scored ``index_score``, and ``lone_corner`` of that when only
one of its indices is found while the other corner lies in the image. A deck has one card of each
kind, and a card lies where it reads surest: a card read at least as surely stays as it was read;
else its readings whose box is the index's card (overlapping it by ``same_card``, or holding the
index) become as sure as the index; else the card is read at the index instead of where it was read
less surely. Without ``cut``, an index's card reaching past the image's edge is left out.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..indices import both_corners, find, other_index
from ..reading import Read, angle_of, bounding_box, holds_point, past_edge
from ..refine import overlap
from .context import Context


def runs(context: Context) -> bool:
    return context.config.indices and context.profile.index_alone and context.reader.views == "corners"


def step(image: np.ndarray, reads: list[Read], context: Context) -> list[Read]:
    if not runs(context):
        return reads
    c, reader, deck = context.config, context.reader, context.deck
    h, w = image.shape[:2]
    found = find(image, reader, deck)
    out = list(reads)

    def sureness(f) -> float:
        lone = 0 <= f.other[0] < w and 0 <= f.other[1] < h and not both_corners(found, f) \
            and not other_index(image, reader, f, deck)
        return f.probability * c.index_score ** c.box_power * (c.lone_corner if lone else 1.0)

    for sure, f in sorted(((sureness(f), f) for f in found), key=lambda t: -t[0]):
        beyond = past_edge(f.corners, w, h)
        if sure < context.threshold or (beyond and not c.cut):
            continue
        same = [r for r in out if r.card == f.card]
        if any(r.confidence >= sure for r in same):
            continue                  # the card reads at least as surely where it was read
        held = {id(r) for r in same if holds(r, f, c.same_card)}
        if held:
            out = [replace(r, confidence=sure) if id(r) in held else r for r in out]
        else:
            out = [r for r in out if r.card != f.card]
            out.append(Read(f.card, sure, bounding_box(f.corners, w, h), f.corners.tolist(),
                            angle_of(f.corners), 0.0, [], beyond))
    return sorted(out, key=lambda r: -r.confidence)


def holds(r: Read, f, same_card: float) -> bool:
    """Whether reading ``r``'s box is the card of the index found as ``f``: it overlaps that card
    by ``same_card`` or more, or holds the index (a box over the part of the card that shows)."""
    return holds_point(r, f.centre) or overlap(f.corners, np.asarray(r.corners, np.float32)) >= same_card
