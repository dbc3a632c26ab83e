"""Strips: a box that is only a strip of a card, the rest under other cards' boxes (a hand laid
down in an overlapping row) or, with ``config.cut``, beyond the image's edge, read again as the
whole card it is part of, from the one index corner in the strip.

Its reading counts at ``lone_corner`` (one corner, as when the other shows no index) times the
detector's own score (not ``snapped``: paper edges say a box is one whole card, and a strip is
not). It replaces the box's reading only where it is surer, and a ``NONE`` only at the reader's
``sure`` level. The box stays the strip; a card reaching past the image's edge is ``beyond``.
"""
from __future__ import annotations

import numpy as np

from ..geometry import corner_views
from ..occlusion import cut_cards, outside, showing_corner, whole_cards
from ..reading import NOT_A_CARD, Read, bounding_box, past_edge
from .context import Context


def step(image: np.ndarray, reads: list[Read], context: Context) -> list[Read]:
    c = context.config
    if not c.strips:
        return reads
    reader, deck = context.reader, context.deck
    knows_backs = "BACK" in reader.names
    faces = [k for k, r in enumerate(reads) if knows_backs or r.card != "BACK"]   # the reads the reader read
    quads = [np.asarray(r.corners, np.float32) for r in reads]
    beyond = outside(image.shape[1], image.shape[0]) if c.cut else []
    h, w = image.shape[:2]
    todo, views = [], []
    for k in faces:
        others = quads[:k] + quads[k + 1:] + beyond
        for card in whole_cards(quads[k], others) + cut_cards(quads[k], beyond):
            corner = showing_corner(card, quads[k], deck)
            if corner is not None:
                todo.append((k, past_edge(card, w, h)))
                views.append(corner_views(image, card, deck)[corner])
    if not views:
        return reads
    best: dict[int, tuple[np.ndarray, bool]] = {}   # each strip's surest reading over its whole cards
    for (k, edge), p in zip(todo, reader.probabilities(views)):
        if int(p.argmax()) not in (reader._none, reader._back) and (k not in best or p.max() > best[k][0].max()):
            best[k] = (p, edge)
    out = list(reads)
    for k, (p, edge) in best.items():
        r, strip = out[k], quads[k]
        q = p * c.lone_corner * context.box_weights(r.detector)
        if q.max() <= r.confidence or (r.card == NOT_A_CARD and q.max() < reader.sure):
            continue
        order = np.argsort(-q)[:3]
        out[k] = Read(reader.names[order[0]], float(q[order[0]]), bounding_box(strip, w, h), strip.tolist(),
                      r.angle, r.detector, [(reader.names[j], float(q[j])) for j in order[1:]], edge)
    return out
