"""Read what is on the table: the detector finds cards, a per-deck classifier reads each face-up one.

    reader = TableReader("standard")
    for card in reader.read(cv2.imread("photo.jpg")):
        print(card.card, card.confidence, card.box)

Each face-up card is rectified from the frame at full resolution and its two corner indices are
read (with ``"members"`` in the reader's .json, by each of several readers trained apart, their
probabilities averaged: ``IndexReader``). With ``"views": "corners"`` (the standard reader) each corner is read
alone (``geometry.corner_views``); otherwise both corners side by side, once in each order
(``geometry.view_of``). The two probability vectors are averaged, so two corners that disagree (one
covered by another card) give a low confidence rather than a confident guess; a corner that shows
no index at all (``NONE``: covered by something plain, cut off by the photo) leaves the other to
read alone, at ``LONE_CORNER`` of its probability (``combine``). A card's confidence
is the reader's probability times the square root of the detector's score (``BOX_POWER``; a back's,
times the score itself), so one threshold covers both stages;
``models/README.md`` states the threshold measured to give 99.5% precision. A box that is only a
strip of a card, the rest under other cards (a hand laid down in an overlapping row) or beyond the
photo's edge, is also read as the whole card it is part of, from the one corner that shows
(``occlusion``, ``_read_strips``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from .detector import Detection, Detector, session
from .errors import BadImage, ModelMissing
from .geometry import corner_views, face_view, squarish, view_of
from .indices import both_corners, find as find_indices, other_index
from .metrics import iou
from .occlusion import cut_cards, outside, showing_corner, whole_cards
from .refine import inside, overlap, refine, shared
from .words import WORDS, WordReader, groups, model_paths

MODELS = Path(__file__).resolve().parents[1] / "models"
# detector passes as (fill, contrast) (see Detector): a live frame gets one; a photo two more, shrunk
# to 40% for cards that fill a close-up, once as it is and once with its local contrast raised
LIVE_PASSES = ((1.0, False),)
PHOTO_PASSES = ((1.0, False), (0.4, False), (0.4, True))
# a photo's cards are also looked at close up (``TableReader``'s ``zoom``): the area around each of
# the ZOOM surest face-up boxes (scored ZOOM_FROM or more), ZOOM_MARGIN of its longer side beyond it
# on every side, is cropped and shown to the detector alone, so a card that is a few of its 320
# pixels in the whole photo fills them (a fan of cards the whole photo shows as one card comes
# apart). A box inside a crop already looked at gets none of its own. (Skipping crops enlarged less
# than 1.5 times, close-ups, measured worse on edje/: a second look helps there too.)
ZOOM = 6
ZOOM_FROM = 0.3
ZOOM_MARGIN = 0.3
# on every path, live tables too, up to AGAIN cards read unsure (AGAIN_FROM or more, under the
# reader's ``sure`` level, its stated threshold unless its .json says; surest first) are looked at
# again the same way, AGAIN_MARGIN of their box's longer side beyond it, and the frame read once
# more with what the detector finds there (``TableReader``'s ``again``): a small or blurred card
# boxed a little off, or two cards boxed as one, is found whole in its crop. Only frames with an
# unsure card pay for it, and a live table (``reuse``) looks at an unchanged crop only once.
# (Margins 0.3 and 1.0 measured worse on edje/ and the synthetic frames, or on one of them:
# models/reader-standard.md.)
AGAIN = 4
AGAIN_FROM = 0.1
AGAIN_MARGIN = 0.6
# a square photo is often a camera's photo stretched to a square (labelling tools export them so),
# which squeezes every card in it; with ``unstretch`` it is also read as each of these shapes (width,
# height factors) it may have been squeezed from, cameras' 3:4 and 9:16 either way up, and the shape
# that reads best is kept (``TableReader.read``)
UNSTRETCH = ((1.0, 4 / 3), (4 / 3, 1.0), (1.0, 16 / 9), (16 / 9, 1.0))
# the detector score a box needs to be read at all, on every path (a live table, ``warref detect``,
# ``warref eval``), so that what is read is what was measured: low, since a reading's confidence
# already carries the detector's score, and a weak box whose paper edges are found reads with SNAPPED
GATE = 0.05
PIP = 0.25         # a back inside any box at least 1 / PIP times its size is a pattern on a card
NOT_A_CARD = "NONE"   # a reader class for boxes that hold no card (a pip, a picture, the table)
SNAPPED = 0.9        # the box score of a card whose edges were found (refine)
LONE_CORNER = 0.8    # how much one corner's reading counts when the other shows no index (see combine)
# a corner read unsure of everything (its surest class under FLAT: a book, a newspaper or a cable
# over it, not something plain that reads NONE) beside a corner sure of a card that the face reader
# reads too: the sure corner reads alone, as beside a corner without an index (``_pair``); and, in
# a photo (``TableReader``'s ``lean``), a card whose index views are sure of nothing (under FLAT,
# NONE included) leans on its face reader more, its weight rising towards FACE_MOST
# (``face_weight``). Corner readers only (the standard deck)
FLAT = 0.3
FACE_MOST = 0.6
# a face-up card's confidence is the reader's probability times how sure its box is (the detector's
# score) to this power; a back's, times the score itself. Two legible corners that read one card are
# evidence of a face-up card on their own, while a plain back is easily a table's pattern to the
# reader; the detector, trained on synthetic tables, scores real cards lower than it should
# (models/README.md: 0.5 against 1 read more cards at the same precision on every set measured)
BOX_POWER = 0.5
# how sure a card found by its corner index alone is (``indices``: no box of it was found, or
# only boxes read as another card), counted as a detector's score is: its reading is the index
# finder's probability times INDEX_SCORE to BOX_POWER (models/README.md says how it was chosen)
INDEX_SCORE = 0.3
SAME_CARD = 0.5      # an index's card overlapping a reading of that card this much is that reading's card
FACE_WEIGHT = 0.5    # how much a face reader's reading counts beside the index reader's (see blend)
FACE_FLIPS = (False, True)   # the face views read per way: the card upright and upside down, averaged
# a live table (``reuse``) reads a card again only when it changed: its box moved more than
# REUSE_MOVE pixels, or its patch of the frame (grey, shrunk to SIGNATURE pixels square) changed by
# more than REUSE_CHANGE grey levels anywhere, since the frame it was last read in. Anywhere, not on
# average: a 6 turned into a 7 of the same suit at the same place changes a few pixels of its
# corner a lot and the rest not at all, while camera noise, averaged over each patch pixel's
# dozen frame pixels, stays a few levels
REUSE_MOVE = 2.0
REUSE_CHANGE = 20.0
REUSE_SAME = 0.8
SIGNATURE = 32
DECKS = ("standard", "woolly", "namikopy")
INDEX_DECKS = ("standard",)   # decks whose index layout ``vision.indices`` knows


@dataclass
class Read:
    card: str                       # a deck code, or "BACK"
    confidence: float
    box: list[int]                  # x0, y0, x1, y1 in pixels
    corners: list[list[float]]
    angle: float
    detector: float                 # the detector's own score
    alternatives: list[tuple[str, float]] = field(default_factory=list)   # next best readings
    beyond: bool = False            # read as a card that reaches beyond the image's edge (``cut``)

    def as_json(self) -> dict:
        return {"card": self.card, "confidence": round(self.confidence, 4), "box": self.box,
                "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners], "angle": round(self.angle, 1),
                "detector": round(self.detector, 4),
                "alternatives": [[c, round(p, 4)] for c, p in self.alternatives]}


class IndexReader:
    """The per-deck classifier of index views (ONNX, softmax output); a face reader is one too,
    of whole-card views."""

    def __init__(self, path: Path, threads: int | None = None):
        path = self.path = Path(path)
        for needed in (path, path.with_suffix(".json")):
            if not needed.is_file():
                raise ModelMissing(f"model file {needed} is missing "
                                   "(train it with `warref train`, or check out models/)")
        meta = self.meta = json.loads(path.with_suffix(".json").read_text())
        self.imgsz = int(meta["imgsz"])
        self.threshold = float(meta.get("threshold", 0.5))     # the stated threshold (see models/README.md)
        # where the pipeline's own choices put "read unsure" (a card looked at again, a strip read
        # as its whole card, the shape a square photo reads best in): the stated threshold unless
        # the .json says otherwise (the standard deck keeps 0.6, the level they were measured at,
        # since its stated threshold came down to 0.5)
        self.sure = float(meta.get("sure", self.threshold))
        self.views = meta.get("views", "both")                   # "corners": each corner read alone
        # trained to read a view cut sideways (the card's two blank corners) as NONE: a box read as
        # NONE is then read the other way up too (TableReader.probabilities)
        self.sideways_none = bool(meta.get("sideways_none", False))
        self.names = [meta["names"][str(i)] if isinstance(meta["names"], dict) else meta["names"][i]
                      for i in range(len(meta["names"]))]
        self.session = session(path, threads)
        self.input = self.session.get_inputs()[0].name
        self._none = self.names.index(NOT_A_CARD) if NOT_A_CARD in self.names else None
        self._back = self.names.index("BACK") if "BACK" in self.names else None
        # "members": more readers of the same views, trained apart (files beside this one); every
        # view is read by each and their probabilities averaged (an ensemble: see models/README.md)
        self.members = [IndexReader(path.parent / m, threads) for m in meta.get("members", [])]
        for m in self.members:
            if m.names != self.names or m.imgsz != self.imgsz or m.members:
                raise ValueError(f"{path.name}: member {m.path.name} reads other classes or another view "
                                 "size, or has members of its own: it cannot be averaged with this reader")

    def combine(self, probs: np.ndarray, faces: np.ndarray | None = None, weight: float = FACE_WEIGHT,
                most: float | None = None) -> np.ndarray:
        """One card's probabilities from its views' (``combine``), and a face reader's per way."""
        # a reader of single corners lets a corner read as NONE leave the other to read alone
        return combine(probs, self._none, self._back, lone=self.views == "corners", faces=faces, weight=weight,
                       most=most)

    def reads_none(self, p: np.ndarray) -> bool:
        """Whether a card's probabilities say it shows no index (``NONE``)."""
        return self._none is not None and int(p.argmax()) == self._none

    def probabilities(self, views: list[np.ndarray], alone: bool = False) -> np.ndarray:
        """Each view's class probabilities, averaged over the members (``alone``: this reader's
        own, a third of the work with two members: to screen many views cheaply)."""
        if not views:
            return np.zeros((0, len(self.names)), np.float32)
        batch = np.stack([cv2.cvtColor(cv2.resize(v, (self.imgsz, self.imgsz), interpolation=cv2.INTER_AREA),
                                       cv2.COLOR_BGR2RGB) for v in views]).transpose(0, 3, 1, 2)
        batch = batch.astype(np.float32) / 255
        p = self.session.run(None, {self.input: batch})[0]
        if alone:
            return p
        for m in self.members:
            p = p + m.session.run(None, {m.input: batch})[0]
        return p / (1 + len(self.members)) if self.members else p


class TableReader:
    def __init__(self, deck: str = "standard", models: Path = MODELS, threads: int | None = None,
                 detector: Detector | None = None, passes: tuple[tuple[float, bool], ...] = LIVE_PASSES,
                 reuse: bool = False, unstretch: bool = False, cut: bool = False, zoom: int = 0,
                 again: int = AGAIN, lean: bool = False, indices: bool = False, words: bool = False):
        """``passes``: how the detector looks at the frame, as (fill, contrast) pairs (``Detector``);
        photos use ``PHOTO_PASSES``. Each pass costs a detector run. ``unstretch`` (photos): a
        square image is read once more in each shape of ``UNSTRETCH``. ``reuse`` (a live table, one
        frame after another): a card that has not changed since it was read (``REUSE_MOVE``,
        ``REUSE_CHANGE``) keeps its reading instead of being read again. ``cut`` (photos): a card
        cut by the image's edge is also read as the whole card it is part of, from the one index
        corner inside the image (``_read_strips``; `warref detect` and `warref eval` read photos
        with it, a live table without: see models/reader-standard.md).
        ``zoom`` (photos; ``ZOOM``): the areas around that many of the surest cards are looked at
        again, cropped, each in one more detector run (``_zoomed``). ``again``: so are up to that
        many cards read unsure, and the image read once more (``AGAIN``; 0: not).
        ``lean`` (photos): a card whose index corners read sure of nothing leans on the face reader
        more (``face_weight``, up to ``FACE_MOST``); a live table does not: there its corners are
        mostly hidden by the hand laying it down, and a card read a little surer under the hand was
        asked for again (models/reader-standard.md, "Corners read unsure of everything").
        ``indices`` (photos, the standard deck): cards are also looked for by their corner index
        alone (``vision.indices``; ``_with_indices``), for a card whose edges the detector does
        not see (white on white, glare, mostly beyond the photo's edge).
        ``words`` (photos, the standard deck): the photo's text is read too, and a card that prints
        its name (a joker: ``vision.words``) is found by it (``_with_words``)."""
        if deck not in DECKS:
            raise ValueError(f"unknown deck {deck!r}: choose one of {', '.join(DECKS)}")
        self.deck = deck
        self.models, self.threads, self._own_detector = Path(models), threads, detector is not None
        self.passes = tuple(passes)
        self.detector = detector or Detector(Path(models) / "detector.onnx", threads)
        self.reader = IndexReader(Path(models) / f"reader-{deck}.onnx", threads)
        # a face reader (the .json's "face": its file beside it) reads the whole card too
        face = self.reader.meta.get("face")
        self.face = IndexReader(Path(models) / face, threads) if face else None
        self.face_weight = float(self.reader.meta.get("face_weight", FACE_WEIGHT))
        self.reuse = reuse
        self.unstretch = unstretch
        self.cut = cut
        self.zoom = int(zoom)
        self.again = int(again)
        self.lean = bool(lean)
        self.indices = bool(indices) and deck in INDEX_DECKS and self.reader.views == "corners"
        self.words = bool(words) and deck in WORDS
        if self.words:
            model_paths()                                  # a clear message now if the text reader is missing
        self._word_reader: WordReader | None = None      # made when first needed
        # (key box, patch, probabilities, the detector's box)
        self._read_before: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._looked_before: list[tuple[np.ndarray, np.ndarray, list[Detection]]] = []   # (crop, patch, found)
        self._entries: list = []                 # the last identify's readings, as a pool for the next

    def settings(self) -> dict:
        """This reader's making, as it now reads (``passes``, ``cut`` and the like as set since):
        ``TableReader(**settings)`` makes the same reader again, in another process too
        (``vision.photos``). A reader given its own ``detector`` cannot be made again this way."""
        if self._own_detector:
            raise ValueError("a reader made with its own detector cannot be made again from its settings")
        return {"deck": self.deck, "models": self.models, "threads": self.threads, "passes": self.passes,
                "reuse": self.reuse, "unstretch": self.unstretch, "cut": self.cut, "zoom": self.zoom,
                "again": self.again, "lean": self.lean, "indices": self.indices,
                "words": self.words}

    def identify(self, image: np.ndarray, detections: list[Detection], pool: list | None = None) -> list[Read]:
        """Read each detection from its box as the detector placed it. A box whose card's edges are
        found as a pale paper rectangle (``refine``) counts as surer (``SNAPPED``), but is not moved
        to those edges: since detector run 5 moving it read fewer cards, on every set measured
        (models/reader-standard.md). When the deck's reader knows backs, it reads every detection
        and has the last word on face or back (the detector's face/back call is the weaker of the
        two on real photos); otherwise backs are the detector's. ``pool``: readings that a box
        that has not changed keeps (``_probabilities_reusing``)."""
        knows_backs = "BACK" in self.reader.names
        todo = [d for d in detections if knows_backs or d.kind == "card"]
        edges = {id(d): refine(image, d.corners, [e.corners for e in detections if e is not d]) for d in todo}
        # a card is known again by its paper edges where they are found: steadier from frame to
        # frame than the detector's box, which a noisy camera moves by a pixel or two
        probs = iter(self._probabilities_reusing(image, [d.corners for d in todo], [edges[id(d)][0] for d in todo], pool))
        h, w = image.shape[:2]
        reads, faces = [], []
        for d in detections:
            corners = d.corners
            box = bounding_box(corners, w, h)
            if id(d) not in edges:
                reads.append(Read("BACK", d.score, box, corners.tolist(), d.angle, d.score))
                continue
            p = next(probs)
            # how sure we are that this is one whole card with its corners where we cut: the
            # detector's score, or SNAPPED when its edges were found as a pale paper rectangle
            # (counting as its square root for a face-up card: _box_weights, BOX_POWER)
            faces.append(len(reads))
            sure = max(d.score, SNAPPED) if edges[id(d)][1] else d.score
            q = p * self._box_weights(sure)
            order = np.argsort(-q)[:3]
            reads.append(Read(self.reader.names[order[0]], float(q[order[0]]), box,
                              corners.tolist(), d.angle, d.score,
                              [(self.reader.names[j], float(q[j])) for j in order[1:]]))
        return self._read_strips(image, reads, faces)

    def _box_weights(self, sure: float) -> np.ndarray:
        """What each class's probability is multiplied by for a box this sure: ``sure`` to ``BOX_POWER``
        for a face-up card, ``sure`` itself for a back."""
        w = np.full(len(self.reader.names), float(sure) ** BOX_POWER, np.float32)
        if self.reader._back is not None:
            w[self.reader._back] = sure
        return w

    def _zoomed(self, image: np.ndarray, found: list[Detection], threshold: float) -> list[Detection]:
        """``found`` and what the detector finds in crops around up to ``zoom`` of its surest face-up
        boxes (``ZOOM_FROM``, ``ZOOM_MARGIN``), in the image's pixels, merged as passes are."""
        surest = [d.corners for d in sorted(found, key=lambda d: -d.score) if d.kind == "card" and d.score >= ZOOM_FROM]
        return self._found_in(image, found, _crops(surest, self.zoom, ZOOM_MARGIN, image.shape), threshold)

    def _looked_again(self, image: np.ndarray, found: list[Detection], reads: list[Read],
                      threshold: float, pool: list) -> list[Read]:
        """``reads`` of ``found``, or, where up to ``again`` face-up cards are read unsure
        (``AGAIN_FROM`` or more, under the reader's ``sure``), the image read again with what the
        detector finds in crops around them (``AGAIN_MARGIN``) added to ``found``; a box read
        before (``pool``) keeps its reading. A live table (``reuse``) also keeps what it found in
        the crops it looked at before whose patch of the frame has not changed, whether or not a
        card there is still read unsure: a card found in a look and a box read just under
        ``AGAIN_FROM`` in the next frame, with nothing on the table changed, would otherwise come
        and go from frame to frame."""
        unsure = [np.asarray(r.corners, np.float32) for r in sorted(reads, key=lambda r: -r.confidence)
                  if r.card != "BACK" and AGAIN_FROM <= r.confidence < self.reader.sure]
        crops = _crops(unsure, self.again, AGAIN_MARGIN, image.shape)
        # a live table's looks before, their patch of this frame unchanged: (look, still the same)
        looks = [(b, np.abs(_patch(image, b[0]) - b[1]).max() <= REUSE_CHANGE) for b in self._looked_before] \
            if self.reuse else []
        kept = [b for b, same in looks if same and all(iou(b[0], c) < REUSE_SAME for c in crops)]
        if not crops and not kept:
            self._looked_before = []
            return reads
        unchanged = [b for b, same in looks if same] if self.reuse else None
        return self._final(image, self._found_in(image, found, crops, threshold, unchanged, kept), pool)

    def _found_in(self, image: np.ndarray, found: list[Detection], crops: list[tuple[int, int, int, int]],
                  threshold: float, unchanged: list | None = None, kept: list | None = None) -> list[Detection]:
        """``found`` with what the detector finds in each crop alone, in the image's pixels, merged as
        passes are (``_merged``). ``unchanged`` (a live table): the crops looked at in the frame
        before whose patch of this image is unchanged (``REUSE_CHANGE``); where one overlaps a crop
        by ``REUSE_SAME``, what was found there then is kept, and no detector runs for it (the crop
        follows a box that a noisy camera moves by a pixel or two). ``kept``: more of those whose
        findings are kept as they are (``_looked_again``). With ``unchanged`` given, this call's
        looks are remembered for the next frame."""
        remember = unchanged is not None
        seen = list(kept or [])
        for b in seen:
            found = _merged(found, b[2])
        h, w = image.shape[:2]
        for crop in crops:
            x0, y0, x1, y1 = crop
            if crop == (0, 0, w, h) and (1.0, False) in self.passes:
                continue                        # the whole image, as the first pass saw it: nothing new
            before = next((b for b in unchanged if iou(b[0], crop) >= REUSE_SAME), None) if remember else None
            if before is None:
                shift = np.float32([x0, y0])
                box = np.array(crop, np.float32)
                before = (box, _patch(image, box),
                          [Detection(d.kind, d.score, d.corners + shift, d.angle)
                           for d in self.detector(image[y0:y1, x0:x1], threshold, fill=1.0, contrast=False)])
            seen.append(before)
            found = _merged(found, before[2])
        if remember:
            self._looked_before = seen
        return found

    def _read_strips(self, image: np.ndarray, reads: list[Read], faces: list[int]) -> list[Read]:
        """Read again each card whose box is a strip that other cards' boxes cover the rest of (a
        hand laid down in an overlapping row; ``occlusion``), or with ``cut`` the image's edge (a
        card cut by the photo, across or along its length): widened to the whole card under them,
        from the one index corner in the strip, at ``LONE_CORNER`` of its probability (one corner,
        as when the other shows no index), times the detector's own score (not ``SNAPPED``: paper
        edges say a box is one whole card, and a strip is not). The new reading replaces the old
        one where it is surer (on the real photos, replacing it always lost a few right readings of
        whole cards that a stretched photo makes look narrow), and a ``NONE`` (not a card: dropped)
        only where it reaches the reader's ``sure`` level (on the demo table, strips of cards
        in a war pile read as faint cards and made the dashboard ask again). ``faces``: the reads
        the reader read. The box is the strip: what shows of the card; a reading as a card that
        reaches beyond the image's edge is marked ``beyond`` (``read`` chooses a square photo's
        shape without such readings)."""
        quads = [np.asarray(r.corners, np.float32) for r in reads]
        # with ``cut``, the area beyond the image's edges hides the rest of a card too
        beyond = outside(image.shape[1], image.shape[0]) if self.cut else []
        h, w = image.shape[:2]
        todo, views = [], []
        for k in faces:
            others = quads[:k] + quads[k + 1:] + beyond
            for card in whole_cards(quads[k], others) + cut_cards(quads[k], beyond):
                corner = showing_corner(card, quads[k], self.deck)
                if corner is not None:
                    todo.append((k, _past_edge(card, w, h)))
                    views.append(corner_views(image, card, self.deck)[corner])
        if not views:
            return reads
        best: dict[int, tuple[np.ndarray, bool]] = {}   # each strip's surest reading over its whole cards
        for (k, past_edge), p in zip(todo, self.reader.probabilities(views)):
            if int(p.argmax()) not in (self.reader._none, self.reader._back) and \
                    (k not in best or p.max() > best[k][0].max()):
                best[k] = (p, past_edge)
        out = list(reads)
        for k, (p, past_edge) in best.items():
            r, strip = out[k], quads[k]
            q = p * LONE_CORNER * self._box_weights(r.detector)
            if q.max() <= r.confidence or (r.card == NOT_A_CARD and q.max() < self.reader.sure):
                continue
            order = np.argsort(-q)[:3]
            out[k] = Read(self.reader.names[order[0]], float(q[order[0]]), bounding_box(strip, w, h), strip.tolist(),
                          r.angle, r.detector,
                          [(self.reader.names[j], float(q[j])) for j in order[1:]], past_edge)
        return out

    def _probabilities_reusing(self, image: np.ndarray, boxes: list[np.ndarray],
                               keys: list[np.ndarray] | None = None, pool: list | None = None) -> list[np.ndarray]:
        """``probabilities``, except that a box that matches a reading in ``pool`` (a live table's
        readings of the frame before, ``reuse``; or of this image a moment ago, ``_looked_again``)
        keeps that reading: its key (``keys`` or else the box itself) with its bounding box within
        REUSE_MOVE pixels, no pixel of its patch more than REUSE_CHANGE grey levels from the patch
        it was read from, and the box itself overlapping the one read then by ``REUSE_SAME``.
        A reading is compared with the frame it was read in, never the last one, so a slow drift
        (light, a card pushed a pixel a frame) adds up and is read again. The box is compared too
        because a key can be a card's paper edges, which two boxes can share: one box over the
        card and one over it and more (a fan), read differently. Without ``reuse`` only the very
        same box keeps its reading (an image read again). Without a ``pool`` every box is read.
        This call's readings, as a pool, are left in ``_entries``."""
        if pool is None:
            self._entries = []
            return self.probabilities(image, boxes)
        out: list[np.ndarray | None] = []
        seen = []
        def same(b, box, patch, quad) -> bool:
            if not self.reuse:                  # the same image read again: only the very same box
                return np.array_equal(b[3], quad)
            return np.abs(b[0] - box).max() <= REUSE_MOVE and np.abs(b[1] - patch).max() <= REUSE_CHANGE \
                and overlap(b[3], quad) >= REUSE_SAME

        for corners, quad in zip(keys or boxes, boxes):
            box = patch = None                  # (only a live table compares them)
            if self.reuse:
                box = np.concatenate([corners.min(0), corners.max(0)])
                patch = _patch(image, box)
            before = next((b for b in pool if same(b, box, patch, quad)), None)
            out.append(None if before is None else before[2])
            seen.append(before or (box, patch, None, quad))
        fresh = iter(self.probabilities(image, [c for c, p in zip(boxes, out) if p is None]))
        out = [p if p is not None else next(fresh) for p in out]
        self._entries = [(box, patch, p, quad) for (box, patch, _, quad), p in zip(seen, out)]
        return out

    def probabilities(self, image: np.ndarray, boxes: list[np.ndarray]) -> list[np.ndarray]:
        """Each box's card probabilities (``combine`` of its views, ``views_of``, and with a face
        reader of its face views), in one run of each reader.
        When the reader was trained to read a sideways view as NONE (``sideways_none``), a box
        read as NONE one way up is read the other way up too, in a second run: a card seen steeply
        from its short end can look longer across than along, so its box's short edge was the
        card's long one."""
        per = self._readings(image, boxes)
        out = [self._combine(*reading) for reading in per]
        again = [k for k, (c, p) in enumerate(zip(boxes, out)) if self.reader.reads_none(p) and not squarish(c)] \
            if self.reader.sideways_none else []
        if again:
            turned = self._readings(image, [boxes[k] for k in again], (True,))
            for (views, faces), k in zip(turned, again):
                both_faces = None if faces is None else np.concatenate([per[k][1], faces])
                out[k] = self._combine(np.concatenate([per[k][0], views]), both_faces)
        return out

    def _combine(self, views: np.ndarray, faces: np.ndarray | None) -> np.ndarray:
        return self.reader.combine(views, faces, self.face_weight, FACE_MOST if self.lean else None)

    def _readings(self, image: np.ndarray, boxes: list[np.ndarray], ways: tuple[bool, ...] | None = None):
        """For each box, its index views' probabilities (``views_of``: two per way of reading it)
        and, with a face reader, one face reading per way (the mean over ``FACE_FLIPS``), else None."""
        ways_each = [self.ways_of(c, ways) for c in boxes]
        cut = [self.views_of(image, c, w) for c, w in zip(boxes, ways_each)]
        flat = self.reader.probabilities([v for views in cut for v in views])
        ends = np.cumsum([0] + [len(views) for views in cut])
        per = [flat[a:b] for a, b in zip(ends, ends[1:])]
        if self.face is None:
            return [(p, None) for p in per]
        n = len(FACE_FLIPS)
        faces = self.face.probabilities([face_view(image, c, self.deck, flip, sideways)
                                         for c, w in zip(boxes, ways_each) for sideways in w for flip in FACE_FLIPS])
        ends = np.cumsum([0] + [n * len(w) for w in ways_each])
        return [(p, faces[a:b].reshape(-1, n, faces.shape[1]).mean(1)) for p, a, b in zip(per, ends, ends[1:])]

    @staticmethod
    def ways_of(corners: np.ndarray, ways: tuple[bool, ...] | None = None) -> tuple[bool, ...]:
        """How a box is read, as ``sideways`` flags: ``ways`` if given; by default the way up the
        box gives, and for a box too close to square to tell its short edge (a stretched photo, a
        card cut by the frame's edge, a card seen steeply from its short end) the other way up too."""
        if ways is not None:
            return ways
        return (False, True) if squarish(corners) else (False,)

    def views_of(self, image: np.ndarray, corners: np.ndarray, ways: tuple[bool, ...] | None = None) -> list[np.ndarray]:
        """The views the reader reads for one card, two per way of reading it (each two are
        averaged; ``ways_of``)."""
        ways = self.ways_of(corners, ways)
        if self.reader.views == "corners":
            return [v for sideways in ways for v in corner_views(image, corners, self.deck, sideways)]
        return [view_of(image, corners, self.deck, flip, sideways) for sideways in ways for flip in (False, True)]

    def read(self, image: np.ndarray, threshold: float = GATE) -> list[Read]:
        """Every card and back in the image above ``threshold``, read, best first (``read_as_is``).
        With ``unstretch``, a square image is also read stretched back to each shape in
        ``UNSTRETCH``, and the shape that reads best is kept: the one whose readings at or above the
        reader's ``sure`` level add up to the most confidence (the image as it is when none
        reads better), its boxes brought back to the image's pixels. A card squeezed by a
        stretched photo can look wider than tall, and its box is then read with the wrong edge on
        top (``models/reader-standard.md``). One shape for the whole photo, not the surest shape
        for each card: a photo was stretched from one shape, and mixing them measured as many
        right readings at the stated threshold but more confident wrong ones below it."""
        h, w = image.shape[:2]
        best = self.read_as_is(image, threshold)
        if self.unstretch and h == w:
            best = self._best_shape(image, best, threshold)
        if self.indices:
            best = self._with_indices(image, best, threshold)
        return self._with_words(image, best, threshold) if self.words else best

    def _best_shape(self, image: np.ndarray, best: list[Read], threshold: float) -> list[Read]:
        """``read``'s choice of shape for a square image read as it is into ``best``."""
        h, w = image.shape[:2]
        most = _weight(best, self.reader.sure)
        for fx, fy in UNSTRETCH:
            big = cv2.resize(image, (round(w * fx), round(h * fy)), interpolation=cv2.INTER_CUBIC)
            reads = [_squeezed(r, big.shape[1] / w, big.shape[0] / h, w, h) for r in self.read_as_is(big, threshold)]
            weight = _weight(reads, self.reader.sure)
            if weight > most:
                best, most = reads, weight
        return best

    def _with_indices(self, image: np.ndarray, reads: list[Read], threshold: float = GATE) -> list[Read]:
        """``reads`` with the cards found by their corner index (``vision.indices.find``), each
        as sure as a box scored ``INDEX_SCORE``, and at ``LONE_CORNER`` of that when only one of
        its indices is found while the other corner lies in the image (covered, by another card
        or a book: how much of the card shows is not known); the other is found as ink marks
        (``both_corners``) or read where it should lie (``indices.other_index``). A deck has one card of each kind, and
        a card lies where it reads surest:
        - a card read at least as surely as its index stays as it was read;
        - otherwise its readings whose box is the index's card (overlapping it by ``SAME_CARD`` or
          more, or holding the index: a box over the part of the card that shows) become as sure
          as the index, their boxes kept;
        - and where no box is the index's card, the card is read at the index instead of where it
          was read less surely (a card read nowhere is a card of its own).
        A card read at the index is boxed as much of the card it belongs to as the image shows
        (``beyond`` when it reaches past the image's edge; without ``cut``, such a card is left
        out, as cut cards are). Findings under ``threshold`` are left out. Surest first."""
        h, w = image.shape[:2]
        found = find_indices(image, self.reader, self.deck)
        out = list(reads)

        def sureness(f) -> float:
            lone = 0 <= f.other[0] < w and 0 <= f.other[1] < h and not both_corners(found, f) \
                and not other_index(image, self.reader, f, self.deck)
            return f.probability * INDEX_SCORE ** BOX_POWER * (LONE_CORNER if lone else 1.0)

        for sure, f in sorted(((sureness(f), f) for f in found), key=lambda t: -t[0]):
            beyond = _past_edge(f.corners, w, h)
            if sure < threshold or (beyond and not self.cut):
                continue
            same = [r for r in out if r.card == f.card]
            if any(r.confidence >= sure for r in same):
                continue                  # the card reads at least as surely where it was read
            held = {id(r) for r in same if _holds(r, f)}
            if held:
                out = [replace(r, confidence=sure) if id(r) in held else r for r in out]
            else:
                out = [r for r in out if r.card != f.card]
                out.append(Read(f.card, sure, bounding_box(f.corners, w, h), f.corners.tolist(),
                                _angle(f.corners), 0.0, [], beyond))
        return sorted(out, key=lambda r: -r.confidence)

    def _with_words(self, image: np.ndarray, reads: list[Read], threshold: float = GATE) -> list[Read]:
        """``reads`` with the cards found by a word they print (``vision.words``: a joker's JOKER),
        each as sure as the text reader is of its surest word; a card's words (both ends) are one
        card (``words.groups``). Where it lies:
        - a reading of that card whose box holds one of its words is it, made as sure as the word
          when it was read less surely;
        - otherwise the surest reading under the reader's stated threshold whose box holds a word
          is it (a joker read unsurely as a king): it becomes the word's card, its box kept;
        - otherwise (no box there, or only cards read at the threshold or over, which the photo
          states: a card beside the joker) the card is a card of its own, boxed by its words.
        Words under ``threshold`` are left out. Surest first."""
        if self._word_reader is None:
            self._word_reader = WordReader(self.deck, self.threads)
        h, w = image.shape[:2]
        out = list(reads)
        stated = self.reader.threshold
        for group in groups([x for x in self._word_reader.find(image) if x.probability >= threshold]):
            card, sure = group[0].card, max(x.probability for x in group)
            holders = [r for r in out if any(_holds_point(r, x.centre) for x in group)]
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
                out.append(Read(card, sure, bounding_box(points, w, h), corners.tolist(), _angle(corners), 0.0))
        return sorted(out, key=lambda r: -r.confidence)

    def read_as_is(self, image: np.ndarray, threshold: float = GATE) -> list[Read]:
        """Every card and back the detector finds above ``threshold``, read; best first.

        Where readings overlap, the most confident one wins: boxes on the same card are one
        card, and a box lying inside a more confident card is a picture on that card. A ``BACK``
        inside any box found at least four times its size (``PIP``) goes, whatever that box was read as
        (a red pip on a close-up card the reader could not read): every card on a table is the same
        size, and a back is a whole card. A box the reader reads as ``NONE`` (a reader trained with
        that class: not a card, but a pip, a court picture or the table) is dropped before any of
        this."""
        found: list[Detection] = []
        for fill, contrast in self.passes:      # a card found by several passes is one: keep the surest
            found = _merged(found, self.detector(image, threshold, fill=fill, contrast=contrast))
        if self.zoom:
            found = self._zoomed(image, found, threshold)
        # a live table keeps the readings of boxes that have not changed since the frame before;
        # a look again keeps those of the image's first reading
        pool = self._read_before if self.reuse else ([] if self.again else None)
        reads = self._final(image, found, pool)
        if self.again:
            reads = self._looked_again(image, found, reads, threshold, self._entries + (pool or []))
        if self.reuse:
            self._read_before = self._entries
        return reads

    def _final(self, image: np.ndarray, found: list[Detection], pool: list | None = None) -> list[Read]:
        """``found`` read, overlaps settled (``read_as_is``; ``pool``: ``identify``)."""
        reads = self.identify(image, found, pool)
        boxes = [np.array(r.corners) for r in reads]

        def pattern(r: Read) -> bool:           # a BACK that is the pattern on a card or a pip
            c = np.array(r.corners)
            return r.card == "BACK" and any(inside(c, b, PIP) for b in boxes)
        return _one_per_card([r for r in reads if r.card != NOT_A_CARD and not pattern(r)])


def _merged(found: list[Detection], new: list[Detection]) -> list[Detection]:
    """``found`` with ``new`` detections of the same image added: where two overlap by 0.6 or
    more they are one card, and the surer box stays."""
    found = list(found)
    for d in new:
        if all(overlap(d.corners, e.corners) < 0.6 for e in found if e.score >= d.score):
            found = [e for e in found if e.score >= d.score or overlap(d.corners, e.corners) < 0.6]
            found.append(d)
    return found


def _crops(quads: list[np.ndarray], limit: int, margin: float, shape) -> list[tuple[int, int, int, int]]:
    """Crops (x0, y0, x1, y1) of an image of ``shape`` around the first ``limit`` of ``quads`` (in
    their order), ``margin`` of each one's longer side beyond it on every side; a quad inside a
    crop already made gets none of its own."""
    h, w = shape[:2]
    crops: list[tuple[int, int, int, int]] = []
    for q in quads:
        if len(crops) == limit:
            break
        lo, hi = q.min(0), q.max(0)
        if any(x0 <= lo[0] and y0 <= lo[1] and hi[0] <= x1 and hi[1] <= y1 for x0, y0, x1, y1 in crops):
            continue
        m = margin * float((hi - lo).max())
        x0, y0, x1, y1 = bounding_box(np.array([lo - m, hi + m]), w, h)
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            crops.append((x0, y0, x1, y1))
    return crops


def _patch(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """A box's (x0, y0, x1, y1) patch of the image, grey, shrunk to ``SIGNATURE`` pixels square: what a
    live table compares to tell whether something changed there (``REUSE_CHANGE``)."""
    x0, y0 = np.maximum(np.floor(box[:2]).astype(int), 0)
    x1, y1 = np.ceil(box[2:]).astype(int)
    crop = image[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)]
    if crop.size and crop.ndim == 3:          # grey, only the box (not the whole frame)
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    return cv2.resize(crop, (SIGNATURE, SIGNATURE), interpolation=cv2.INTER_AREA).astype(np.float32) \
        if crop.size else np.zeros((SIGNATURE, SIGNATURE), np.float32)


def _holds(r: Read, f) -> bool:
    """Whether reading ``r``'s box is the card of the index found as ``f`` (``vision.indices``):
    it overlaps that card by ``SAME_CARD`` or more, or holds the index (a box over the part of
    the card that shows, or one whose card the index's size guesses wrong)."""
    return _holds_point(r, f.centre) or overlap(f.corners, np.asarray(r.corners, np.float32)) >= SAME_CARD


def _holds_point(r: Read, point: np.ndarray) -> bool:
    """Whether ``r``'s box (its corners) holds ``point``."""
    corners = np.asarray(r.corners, dtype=np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(corners, (float(point[0]), float(point[1])), False) >= 0


def _angle(corners: np.ndarray) -> float:
    """A card's angle in degrees from its corners, top-left first: 0 upright, its left edge's way
    down turned from straight down."""
    down = corners[3] - corners[0]
    return float(np.degrees(np.arctan2(down[1], down[0]))) - 90


def _past_edge(corners: np.ndarray, width: int, height: int) -> bool:
    """Whether a quadrilateral reaches beyond a ``width`` x ``height`` image (by more than a pixel)."""
    return bool((corners.min(0) < -1).any() or (corners.max(0) > (width + 1, height + 1)).any())


def _weight(reads: list[Read], threshold: float) -> float:
    """How well a reading of an image reads: its confidence at or above ``threshold``, added up,
    cards read beyond the image's edge left out (a shape is chosen by the cards it shows whole)."""
    return sum(r.confidence for r in reads if r.confidence >= threshold and not r.beyond)


def _one_per_card(reads: list[Read]) -> list[Read]:
    """The most confident reading first; one whose box overlaps a kept one by half or more, or lies
    inside one at most half its size, or shares half of the smaller box or more with one read as
    the same card (either inside the other, whatever their sizes, or across it), goes: the same card
    read twice (a second box over part of it, or over it and the table or cards around it), or a
    picture on a card."""
    kept: list[Read] = []
    for r in sorted(reads, key=lambda r: -r.confidence):
        c = np.array(r.corners)
        if all(overlap(c, k) < 0.5 and not inside(c, k, 0.5) and not (same and shared(c, k) >= 0.5)
               for k, same in ((np.array(k.corners), k.card == r.card) for k in kept)):
            kept.append(r)
    return kept


def _squeezed(r: Read, fx: float, fy: float, width: int, height: int) -> Read:
    """A reading of an image stretched by (fx, fy), in the unstretched image's pixels."""
    corners = np.asarray(r.corners, np.float64) / (fx, fy)
    a = np.radians(r.angle)
    angle = float(np.degrees(np.arctan2(np.sin(a) / fy, np.cos(a) / fx)))
    return Read(r.card, r.confidence, bounding_box(corners, width, height), corners.tolist(), angle,
                r.detector, r.alternatives, r.beyond)


def bounding_box(corners: np.ndarray, width: int, height: int) -> list[int]:
    """x0, y0, x1, y1: whole pixels around the corners, within the image."""
    x0, y0 = np.floor(np.asarray(corners).min(0))
    x1, y1 = np.ceil(np.asarray(corners).max(0))
    return [int(max(0, x0)), int(max(0, y0)), int(min(width, x1)), int(min(height, y1))]


def combine(probs: np.ndarray, none: int | None = None, back: int | None = None, lone: bool = True,
            faces: np.ndarray | None = None, weight: float = FACE_WEIGHT, most: float | None = None) -> np.ndarray:
    """One card's probabilities from its views' (two per way of reading it, as ``views_of`` cuts
    them): each two averaged, and the surest way that reads a card counts (a way that reads
    ``NONE``, index ``none``, only when every way does: a near-square box read the wrong way up
    shows two corners without an index). With ``none`` and ``lone`` (a reader of single corners): a corner that
    shows no index (covered, cut off by the photo, or a card's blank corner) does not count against
    the other, whose reading then counts at ``LONE_CORNER`` of its probability; but a ``BACK``
    (index ``back``) needs both corners. Nor does a corner read unsure of everything, where the
    other reads a card surely and the face reader reads it too (``_pair``, ``FLAT``). Not ``lone`` (a reader of
    both corners side by side, whose two views are the same corners in both orders): each two are
    simply averaged. ``faces``: a face reader's reading of the whole card, one per way, blended into
    that way's (``blend``, ``weight``; with ``lone`` and ``most``, up to ``most`` where the corners
    are sure of nothing: ``face_weight``)."""
    corners = none if lone else None
    ways = [_pair(probs[j], probs[j + 1], corners, back, None if faces is None else faces[j // 2])
            for j in range(0, len(probs), 2)]
    if faces is not None:
        ways = [blend(q, f, face_weight(q, weight, corners, most)) for q, f in zip(ways, faces)]
    cards = [q for q in ways if q.argmax() != none]          # every way, without a NONE index
    return max(cards or ways, key=lambda q: q.max())


def face_weight(index: np.ndarray, weight: float, none: int | None, most: float | None = FACE_MOST) -> float:
    """How much a face reading counts beside the index reading ``index`` of a reader of single
    corners (``none``: its NONE class; None: any other reader, ``weight`` unchanged): ``weight``
    while the index reading is sure of anything (``FLAT`` or more), rising to ``most`` as it is
    sure of nothing (two corners covered, blurred or cut: the face shows what they do not; ``most``
    None or not above ``weight``: ``weight``). Sure that the corners show no index (``NONE``) counts
    as sure: a white box or a blank paper there is no card, however its middle reads to the face
    reader. Measured in models/reader-standard.md, "Corners read unsure of everything"."""
    if none is None or most is None or most <= weight:
        return weight
    return most - (most - weight) * min(1.0, float(index.max()) / FLAT)


def blend(index: np.ndarray, face: np.ndarray, weight: float = FACE_WEIGHT) -> np.ndarray:
    """Index and face readings of the same views, as a weighted geometric mean, renormalised: a card
    both readers find likely stays sure, one that only one of them finds likely does not. (A plain
    average measured as accurate but less sure: on Namikopy's held-out cards, at 0.6, 96.3% read
    against 97.5%, both with no mistake.)"""
    tiny = np.float32(1e-12)
    log = (1 - weight) * np.log(np.maximum(index, tiny)) + weight * np.log(np.maximum(face, tiny))
    q = np.exp(log - log.max(-1, keepdims=True))
    return (q / q.sum(-1, keepdims=True)).astype(np.float32)


def _pair(a: np.ndarray, b: np.ndarray, none: int | None, back: int | None,
          face: np.ndarray | None = None) -> np.ndarray:
    """One way's reading from its two corners ``a`` and ``b`` (see ``combine``)."""
    mean = (a + b) / 2
    if none is None:
        return mean
    if mean[none] < 0.5 and max(a[none], b[none]) >= 0.5:
        lone = (a + b) / ((1 - a[none]) + (1 - b[none]))    # the two without NONE: mostly the corner that reads
        lone[none] = 0
        if lone.argmax() != back:
            lone *= LONE_CORNER
            if lone.max() > mean.max():
                return lone
    if face is not None:
        # a corner unsure of everything (something that is not plain over it) leaves a sure corner
        # to read alone where the face reader reads the same card: a fan's box read from one corner
        # is not, as its face shows more than one card
        for sure, flat in ((a, b), (b, a)):
            k = int(sure.argmax())
            if flat.max() < FLAT and sure[k] >= 0.5 and k not in (none, back) and int(face.argmax()) == k:
                return sure * LONE_CORNER
    return mean


def load_image(path: Path) -> np.ndarray:
    path = Path(path)
    if not path.is_file():
        raise BadImage(f"{path}: no such image file")
    data = np.fromfile(str(path), np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise BadImage(f"{path}: not a readable image (empty, corrupt or not a picture)")
    return image
