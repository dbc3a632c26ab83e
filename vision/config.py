"""Every setting of the card reader in one frozen object, with a preset for each way it reads.

    from vision.config import LIVE, PHOTO
    reader = TableReader("standard", PHOTO)                  # a photo: every step
    reader = TableReader("standard", PHOTO.without("zoom"))  # the same, one step switched off

``LIVE`` reads a table frame after frame (`warref run`, the demo); ``PHOTO`` reads one photo with
every step (`warref detect`, `warref eval`). A step is switched by name (``STEPS``); what each
step does and what it is worth on each labelled set is in docs/card-reader-internals.md.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

# what can be switched off by name: the reader's optional steps in the order they run (vision/steps:
# STEPS), and two switches inside steps (cut: strips and indices; lean: identify)
STEPS = ("passes", "zoom", "strips", "cut", "again", "lean", "unstretch", "indices", "words")


@dataclass(frozen=True)
class ReaderConfig:
    # --- which steps run -------------------------------------------------------------------------
    # the detector's looks at the whole image, as (fill, contrast) pairs (``Detector``); a photo's
    # two more at 40% (cards that fill a close-up), once with its local contrast raised
    passes: tuple[tuple[float, bool], ...] = ((1.0, False),)
    zoom: int = 0             # crops around this many of the surest face-up boxes, looked at alone
    strips: bool = True       # a box that is a strip of a card under others read as that whole card
    cut: bool = False         # and a card cut by the image's edge, from the index corner inside
    again: int = 4            # crops around this many cards read unsure, looked at again
    lean: bool = False        # corners sure of nothing lean on the face reader, up to face_most
    unstretch: bool = False   # a square image also read unstretched to each of ``shapes``
    indices: bool = False     # cards also found by their corner index alone (standard deck)
    words: bool = False       # cards also found by a word they print (a joker's JOKER)
    reuse: bool = False       # a live table: a card that has not changed keeps its reading

    # --- how much each thing counts ---------------------------------------------------------------
    gate: float = 0.05        # the detector score a box needs to be read at all
    box_power: float = 0.5    # a face-up card's confidence: reader's probability x box score ** this
    snapped: float = 0.9      # the box score of a card whose paper edges were found
    lone_corner: float = 0.8  # one corner read alone (the other shows no index) counts this much
    flat: float = 0.3         # a corner whose surest class is under this is sure of nothing
    face_weight: float = 0.5  # a face reader's weight beside the index reader (unless its .json says)
    face_most: float = 0.6    # with ``lean``: the face reader's weight where corners are sure of nothing
    face_flips: tuple[bool, ...] = (False, True)   # face views read per way: upright, upside down
    pip: float = 0.25         # a back inside a box 1 / pip times its size is a pattern on a card
    same_card: float = 0.5    # an index's card overlapping a reading of that card this much is it
    index_score: float = 0.3  # the box score a card found by its index alone counts as
    zoom_from: float = 0.3    # boxes scored this or more are zoomed into
    zoom_margin: float = 0.3  # a zoom crop reaches this share of the box's longer side beyond it
    again_from: float = 0.1   # cards read this surely or more (under the reader's ``sure``) looked at again
    again_margin: float = 0.6
    shapes: tuple[tuple[float, float], ...] = ((1.0, 4 / 3), (4 / 3, 1.0), (1.0, 16 / 9), (16 / 9, 1.0))
    reuse_move: float = 2.0   # a live card is read again when its box moved more than this (pixels)
    reuse_change: float = 20.0   # or a pixel of its patch changed more than this (grey levels)
    reuse_same: float = 0.8   # a box overlapping the one read before this much is the same box
    signature: int = 32       # the patch compared, grey, this many pixels square
    # the lowest confidence a live table announces a card at (`warref run`, the demo, the tracker),
    # once read so in ``stable_frames`` sightings in a row; a card read ``announce_sure`` or more is
    # announced after ``sure_frames`` (vision/tracker.py)
    announce: float = 0.8
    stable_frames: int = 3
    announce_sure: float = 0.95
    sure_frames: int = 2

    def without(self, *steps: str) -> ReaderConfig:
        """This configuration with the named steps (``STEPS``) switched off."""
        off = {"passes": {"passes": self.passes[:1]}, "zoom": {"zoom": 0}, "again": {"again": 0}}
        changes: dict = {}
        for step in steps:
            if step not in STEPS:
                raise ValueError(f"unknown reader step {step!r}: choose from {', '.join(STEPS)}")
            changes.update(off.get(step, {step: False}))
        return replace(self, **changes)

    def switched_on(self) -> list[str]:
        """The names of the steps this configuration runs."""
        def on(step: str) -> bool:
            if step == "passes":
                return len(self.passes) > 1
            return bool(getattr(self, step)) and (step != "cut" or self.strips)   # cut is part of strips
        return [s for s in STEPS if on(s)]

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


LIVE = ReaderConfig(reuse=True)
PHOTO = ReaderConfig(passes=((1.0, False), (0.4, False), (0.4, True)), zoom=6, cut=True, lean=True,
                     unstretch=True, indices=True, words=True)
