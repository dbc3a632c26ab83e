"""The card reader's steps, run in this order by one loop (``TableReader.run``) and switched by
``ReaderConfig`` (vision/config.py).

Every step is one function, ``step(image, given, context) -> same kind``, and has a phase:
``boxes`` steps take the detector's boxes and give boxes (``Detection``); ``read`` turns the boxes
into readings (``Read``); ``readings`` steps take readings and give readings. Two steps look
again: ``again`` reads its crops' boxes with the steps ``identify`` to ``settle`` once more, and
``unstretch`` reads each camera shape with the steps ``passes`` to ``again``
(``Context.run``). ``cut`` and ``lean`` are switches, not steps: ``cut`` lets ``strips`` and
``indices`` read a card past the image's edge, ``lean`` changes how ``identify`` weighs the face
reader.

| step      | phase    | switch             | what it does                                                |
|-----------|----------|--------------------|-------------------------------------------------------------|
| passes    | boxes    | ``passes``         | the detector over the whole image, once per (fill, contrast) |
| zoom      | boxes    | ``zoom`` (count)   | crops around the surest boxes shown to the detector alone    |
| identify  | read     | (always)           | each box's corners (and face) read by the deck's reader      |
| strips    | readings | ``strips``/``cut`` | a box that is a strip of a card read as that card            |
| settle    | readings | (always)           | overlaps settled; a NONE goes, a back inside a card is a pip |
| again     | readings | ``again`` (count)  | crops around cards read unsure looked at, boxes read again   |
| unstretch | readings | ``unstretch``      | a square image read at camera shapes; the best kept          |
| indices   | readings | ``indices``        | cards found by their corner index alone (standard deck)      |
| words     | readings | ``words``          | cards found by a word they print (a joker's JOKER)           |
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import again, identify, indices, passes, settle, strips, unstretch, words, zoom
from .context import Context

BOXES, READ, READINGS = "boxes", "read", "readings"


@dataclass(frozen=True)
class Step:
    name: str
    phase: str           # BOXES, READ or READINGS: what it takes and gives
    run: Callable        # step(image, given, context) -> what the next step takes


STEPS: tuple[Step, ...] = (
    Step("passes", BOXES, passes.step),
    Step("zoom", BOXES, zoom.step),
    Step("identify", READ, identify.step),
    Step("strips", READINGS, strips.step),
    Step("settle", READINGS, settle.step),
    Step("again", READINGS, again.step),
    Step("unstretch", READINGS, unstretch.step),
    Step("indices", READINGS, indices.step),
    Step("words", READINGS, words.step),
)
NAMES = tuple(s.name for s in STEPS)


def between(first: str, last: str) -> tuple[Step, ...]:
    """The steps from ``first`` to ``last``, both included, in order."""
    return STEPS[NAMES.index(first):NAMES.index(last) + 1]


__all__ = ["BOXES", "NAMES", "READ", "READINGS", "STEPS", "Context", "Step", "between",
           "again", "identify", "indices", "passes", "settle", "strips", "unstretch", "words", "zoom"]
