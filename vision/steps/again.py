"""Again: cards read unsure looked at again close up, and the image read once more with what the
detector finds there (a small or blurred card boxed a little off, two cards boxed as one).

Up to ``config.again`` face-up cards read ``again_from`` or more but under the reader's ``sure``
level (surest first) get a crop ``again_margin`` of their box's longer side beyond it, and the
boxes with what the crops found are read again (the steps ``identify`` to ``settle``); a box read
before keeps its reading. A look adds or improves readings and never loses one: the first readings
and the look's are settled together, the surer one of a card kept (a look's surer box over a
held-up card can read as no card where the first box read it: realcards/handheld/, +1 card). A
live table (``reuse``) also keeps what it found in the crops it looked at before whose patch of the
frame has not changed, whether or not a card there is still read unsure (else a card found in a
look would come and go from frame to frame). Only images with an unsure card pay for it; an
unchanged live crop is looked at once.
"""
from __future__ import annotations

import numpy as np

from ..reading import Read, crops, iou, one_per_card, patch
from .context import Context
from .looks import look_in


def step(image: np.ndarray, reads: list[Read], context: Context) -> list[Read]:
    c, memory = context.config, context.memory
    if not c.again:
        return reads
    unsure = [np.asarray(r.corners, np.float32) for r in sorted(reads, key=lambda r: -r.confidence)
              if r.card != "BACK" and c.again_from <= r.confidence < context.reader.sure]
    looks = crops(unsure, c.again, c.again_margin, image.shape)
    # a live table's looks before, their patch of this frame unchanged: (look, still the same)
    before = [(b, np.abs(patch(image, b.crop, c.signature) - b.patch).max() <= c.reuse_change)
              for b in memory.looked_before] if c.reuse else []
    kept = [b for b, same in before if same and all(iou(b.crop, x) < c.reuse_same for x in looks)]
    if not looks and not kept:
        memory.looked_before = []
        return reads
    unchanged = [b for b, same in before if same] if c.reuse else None
    found = look_in(image, context.found, looks, context, unchanged, kept)
    # the boxes read again; a box read a moment ago (or, live, in the frame before) keeps its reading
    again = context.run(image, found, "identify", "settle", pool=memory.last_read + (context.pool or []))
    # a look adds or improves, never loses: where its boxes read nothing, the first reading stays
    return one_per_card(again + reads)
