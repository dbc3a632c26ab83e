"""Words: cards found by a word they print (``vision.words``: a joker's JOKER), each as sure as
the text reader is of its surest word; a card's words (both ends) are one card.

A reading of that card whose box holds one of its words is it (made as sure as the word when read
less surely); else the surest reading under the reader's stated threshold whose box holds a word
becomes the word's card (a joker read unsurely as a king); else the card is a card of its own, boxed
by its words. Words under ``context.threshold`` are left out.
"""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from ..reading import Read, angle_of, bounding_box, holds_point
from ..words import groups
from .context import Context


def runs(context: Context) -> bool:
    return context.config.words and bool(context.profile.words)


def step(image: np.ndarray, reads: list[Read], context: Context) -> list[Read]:
    if not runs(context):
        return reads
    h, w = image.shape[:2]
    out = list(reads)
    stated = context.reader.threshold
    for group in groups([x for x in context.text_reader().find(image) if x.probability >= context.threshold]):
        card, sure = group[0].card, max(x.probability for x in group)
        holders = [r for r in out if any(holds_point(r, x.centre) for x in group)]
        same = [r for r in holders if r.card == card]
        unsure = [r for r in holders if r.card != card and r.confidence < stated]
        if same:
            best = max(same, key=lambda r: r.confidence)
            out = [replace(r, confidence=sure) if r is best and r.confidence < sure else r for r in out]
        elif unsure:
            best = max(unsure, key=lambda r: r.confidence)
            was = [(best.card, best.confidence)] + [a for a in best.alternatives if a[0] != card]
            out = [replace(r, card=card, confidence=sure, alternatives=was) if r is best else r for r in out]
        else:
            points = np.concatenate([x.quad for x in group]).astype(np.float32)
            corners = cv2.boxPoints(cv2.minAreaRect(points))
            out.append(Read(card, sure, bounding_box(points, w, h), corners.tolist(), angle_of(corners), 0.0))
    return sorted(out, key=lambda r: -r.confidence)
