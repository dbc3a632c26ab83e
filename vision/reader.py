"""Read what is on the table: the detector finds cards, a per-deck classifier reads each face-up one.

    reader = TableReader("standard", PHOTO)
    for card in reader.read(cv2.imread("photo.jpg")):
        print(card.card, card.confidence, card.box)

Each face-up card is rectified from the frame at full resolution and its two corner indices are
read (with ``"members"`` in the reader's .json, by each of several readers trained apart, their
probabilities averaged: ``IndexReader``). With ``"views": "corners"`` (the standard reader) each
corner is read alone (``geometry.corner_views``); otherwise both corners side by side, once in each
order (``geometry.view_of``). The two probability vectors are averaged, so two corners that disagree
give a low confidence rather than a confident guess; a corner that shows no index at all (``NONE``)
leaves the other to read alone, at ``lone_corner`` of its probability (``combine``). A card's
confidence is the reader's probability times the detector's score to ``box_power`` (a back's, times
the score itself), so one threshold covers both stages.

Every setting is in one ``ReaderConfig`` (vision/config.py: the ``LIVE`` and ``PHOTO`` presets);
the reading is one ordered list of steps (vision/steps: passes, zoom, identify, strips, settle,
again, unstretch, indices, words), one module each, run by one loop (``TableReader.run``).
"""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from referee.say import say

from .config import LIVE, PHOTO, ReaderConfig
from .decode import decode
from .detector import Detection, Detector, session
from .errors import BadImage, ModelMissing
from .geometry import corner_views, face_view, squarish, view_of
from .decks import profile
from .reading import NOT_A_CARD, Memory, Read, Remembered, bounding_box, patch
from .refine import overlap, refine
from .steps import READ, Context, between, words
from .words import WordReader, model_paths

__all__ = ["LIVE", "MODELS", "NOT_A_CARD", "PHOTO", "IndexReader", "Read", "ReaderConfig", "TableReader",
           "blend", "bounding_box", "combine", "face_weight", "load_image"]

def models_folder() -> Path:
    """The committed models: models/ beside vision/ in a checkout, else the wheel's copy of it,
    vision/models/ (the data-only package ``vision.models``, setup.py)."""
    checkout = Path(__file__).resolve().parents[1] / "models"
    if (checkout / "detector.onnx").is_file():
        return checkout
    return Path(__file__).resolve().parent / "models"


MODELS = models_folder()
DEFAULT = ReaderConfig()


class IndexReader:
    """The per-deck classifier of index views (ONNX, softmax output); a face reader is one too,
    of whole-card views."""

    def __init__(self, path: Path, threads: int | None = None):
        path = self.path = Path(path)
        for needed in (path, path.with_suffix(".json")):
            if not needed.is_file():
                raise ModelMissing(say("model file {path} is missing (train it with `warref train`, or check out "
                                       "models/)", path=str(needed)))
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
        # a reader of a taught deck printed light on dark reads each view as its negative, in which
        # that deck looks like the dark-on-light cards its trained layers know (vision/teach.py)
        self.negative = bool(meta.get("negative", False))
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

    def combine(self, probs: np.ndarray, faces: np.ndarray | None = None, weight: float = DEFAULT.face_weight,
                most: float | None = None, config: ReaderConfig = DEFAULT) -> np.ndarray:
        """One card's probabilities from its views' (``combine``), and a face reader's per way."""
        # a reader of single corners lets a corner read as NONE leave the other to read alone
        return combine(probs, self._none, self._back, lone=self.views == "corners", faces=faces, weight=weight,
                       most=most, config=config)

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
        p = self.session.run(None, {self.input: 1 - batch if self.negative else batch})[0]
        if alone:
            return p
        for m in self.members:
            p = p + m.session.run(None, {m.input: 1 - batch if m.negative else batch})[0]
        return p / (1 + len(self.members)) if self.members else p


class TableReader:
    def __init__(self, deck: str = "standard", config: ReaderConfig = DEFAULT, models: Path = MODELS,
                 threads: int | None = None, detector: Detector | None = None):
        """A reader of ``deck``'s cards with every setting from ``config`` (``LIVE``: a table frame
        after frame; ``PHOTO``: one photo, every step). ``detector``: a detector of one's own
        (tests); such a reader cannot be made again from its ``settings``."""
        # a deck a user taught warref (`warref teach`, vision/decks.py) has its own readers and
        # reads as the built-in deck it is like: ``deck`` is that one, ``name`` the deck's own
        self.profile = profile(deck)                 # what is known of the deck (vision/profiles.py)
        self.name, self.deck = deck, self.profile.like
        readers = self.profile.folder or Path(models)
        self.models, self.threads, self._own_detector = Path(models), threads, detector is not None
        own = readers / "detector.onnx"
        self.detector = detector or Detector(own if own.is_file() else Path(models) / "detector.onnx", threads,
                                             self.profile.negative)
        self.reader = IndexReader(readers / self.profile.reader, threads)
        # a face reader (the .json's "face": its file beside it) reads the whole card too
        face = self.reader.meta.get("face")
        self.face = IndexReader(readers / face, threads) if face else None
        self.face_weight = float(self.reader.meta.get("face_weight", config.face_weight))
        self._word_reader: WordReader | None = None      # made when first needed
        self.config = config
        self.memory = Memory()                      # what it keeps between readings (a live table)

    @property
    def config(self) -> ReaderConfig:
        return self._config

    @config.setter
    def config(self, config: ReaderConfig) -> None:
        if not isinstance(config, ReaderConfig):
            raise TypeError(f"a reader's config is a ReaderConfig, not {type(config).__name__}")
        self._config = config
        if words.runs(Context(self, config.gate)):
            model_paths()                          # a clear message now if the text reader is missing

    def word_reader(self) -> WordReader:
        if self._word_reader is None:
            self._word_reader = WordReader(self.deck, self.threads)
        return self._word_reader

    def settings(self) -> dict:
        """This reader's making: ``TableReader(**settings)`` makes the same reader again, in another
        process too (``vision.photos``). A reader given its own ``detector`` cannot."""
        if self._own_detector:
            raise ValueError("a reader made with its own detector cannot be made again from its settings")
        return {"deck": self.name, "models": self.models, "threads": self.threads, "config": self.config}

    def read(self, image: np.ndarray, threshold: float | None = None) -> list[Read]:
        """Every card and back in the image whose box scores ``threshold`` or more (default: the
        config's ``gate``), read, best first: every step (vision/steps: ``STEPS``), in order."""
        return self._read(image, threshold, "words")

    def read_as_is(self, image: np.ndarray, threshold: float | None = None) -> list[Read]:
        """``read`` up to the step ``again``: the image as it is, its cards found by their boxes."""
        return self._read(image, threshold, "again")

    def read_boxes(self, image: np.ndarray, found: list[Detection], pool: list | None = None) -> list[Read]:
        """The detector's boxes ``found`` read and settled: the steps ``identify`` to ``settle``."""
        return self.run(image, found, Context(self, self.config.gate, pool=pool), "identify", "settle")

    def _read(self, image: np.ndarray, threshold: float | None, last: str) -> list[Read]:
        c = self.config
        # a live table keeps the readings of boxes that have not changed since the frame before;
        # a look again keeps those of the image's first reading
        pool = self.memory.read_before if c.reuse else ([] if c.again else None)
        context = Context(self, c.gate if threshold is None else threshold, pool=pool)
        reads = self.run(image, [], context, "passes", last)
        if c.reuse:
            self.memory.read_before = self.memory.last_read
        return reads

    @staticmethod
    def run(image: np.ndarray, given: list, context: Context, first: str = "passes", last: str = "words") -> list:
        """The loop: the steps from ``first`` to ``last`` in order, each given what the one before
        gave (boxes, then from ``identify`` on, readings). The boxes read are ``context.found``."""
        for step in between(first, last):
            if step.phase == READ:
                context.found = given
            given = step.run(image, given, context)
        return given

    def identify(self, image: np.ndarray, detections: list[Detection], pool: list | None = None) -> list[Read]:
        """Read each detection from its box as the detector placed it (the step ``identify``). A
        box whose card's edges are found as a pale paper rectangle (``refine``) counts as surer
        (``snapped``) but is not moved to those edges. When the deck's reader knows backs, it reads
        every detection and has the last word on face or back; otherwise backs are the detector's.
        ``pool``: readings that a box that has not changed keeps (``_probabilities_reusing``)."""
        knows_backs = "BACK" in self.reader.names
        todo = [d for d in detections if knows_backs or d.kind == "card"]
        edges = {id(d): refine(image, d.corners, [e.corners for e in detections if e is not d]) for d in todo}
        # a card is known again by its paper edges where they are found: steadier from frame to
        # frame than the detector's box, which a noisy camera moves by a pixel or two
        probs = iter(self._probabilities_reusing(image, [d.corners for d in todo], [edges[id(d)][0] for d in todo], pool))
        h, w = image.shape[:2]
        reads = []
        for d in detections:
            corners = d.corners
            box = bounding_box(corners, w, h)
            if id(d) not in edges:
                reads.append(Read("BACK", d.score, box, corners.tolist(), d.angle, d.score))
                continue
            p = next(probs)
            sure = max(d.score, self.config.snapped) if edges[id(d)][1] else d.score
            q = p * self.box_weights(sure)
            order = np.argsort(-q)[:3]
            reads.append(Read(self.reader.names[order[0]], float(q[order[0]]), box,
                              corners.tolist(), d.angle, d.score,
                              [(self.reader.names[j], float(q[j])) for j in order[1:]]))
        return reads

    def box_weights(self, sure: float) -> np.ndarray:
        """What each class's probability is multiplied by for a box this sure: ``sure`` to
        ``box_power`` for a face-up card, ``sure`` itself for a back."""
        w = np.full(len(self.reader.names), float(sure) ** self.config.box_power, np.float32)
        if self.reader._back is not None:
            w[self.reader._back] = sure
        return w

    def _probabilities_reusing(self, image: np.ndarray, boxes: list[np.ndarray],
                               keys: list[np.ndarray] | None = None, pool: list | None = None) -> list[np.ndarray]:
        """``probabilities``, except that a box that matches a reading in ``pool`` (a live table's
        readings of the frame before, ``reuse``; or of this image a moment ago, the ``again`` step)
        keeps that reading: its key (``keys`` or else the box itself) with its bounding box within
        ``reuse_move`` pixels, no pixel of its patch more than ``reuse_change`` grey levels from the patch
        it was read from, and the box itself overlapping the one read then by ``reuse_same``.
        A reading is compared with the frame it was read in, never the last one, so a slow drift
        (light, a card pushed a pixel a frame) adds up and is read again. The box is compared too
        because a key can be a card's paper edges, which two boxes can share: one box over the
        card and one over it and more (a fan), read differently. Without ``reuse`` only the very
        same box keeps its reading (an image read again). Without a ``pool`` every box is read.
        This call's readings, as a pool, are left in ``memory.last_read``."""
        if pool is None:
            self.memory.last_read = []
            return self.probabilities(image, boxes)
        c = self.config
        out: list[np.ndarray | None] = []
        seen = []

        def same(b: Remembered, box, signature, quad) -> bool:
            if not c.reuse:                     # the same image read again: only the very same box
                return np.array_equal(b.quad, quad)
            return np.abs(b.box - box).max() <= c.reuse_move and np.abs(b.signature - signature).max() <= c.reuse_change \
                and overlap(b.quad, quad) >= c.reuse_same

        for corners, quad in zip(keys or boxes, boxes):
            box = signature = None              # (only a live table compares them)
            if c.reuse:
                box = np.concatenate([corners.min(0), corners.max(0)])
                signature = patch(image, box, c.signature)
            before = next((b for b in pool if same(b, box, signature, quad)), None)
            out.append(None if before is None else before.probabilities)
            seen.append(before or Remembered(box, signature, None, quad))
        fresh = iter(self.probabilities(image, [c for c, p in zip(boxes, out) if p is None]))
        out = [p if p is not None else next(fresh) for p in out]
        self.memory.last_read = [Remembered(box, signature, p, quad) for (box, signature, _, quad), p in zip(seen, out)]
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
        c = self.config
        return self.reader.combine(views, faces, self.face_weight, c.face_most if c.lean else None, c)

    def _readings(self, image: np.ndarray, boxes: list[np.ndarray], ways: tuple[bool, ...] | None = None):
        """For each box, its index views' probabilities (``views_of``: two per way of reading it)
        and, with a face reader, one face reading per way (the mean over ``face_flips``), else None."""
        ways_each = [self.ways_of(c, ways) for c in boxes]
        cut = [self.views_of(image, c, w) for c, w in zip(boxes, ways_each)]
        flat = self.reader.probabilities([v for views in cut for v in views])
        ends = np.cumsum([0] + [len(views) for views in cut])
        per = [flat[a:b] for a, b in zip(ends, ends[1:])]
        if self.face is None:
            return [(p, None) for p in per]
        flips = self.config.face_flips
        n = len(flips)
        faces = self.face.probabilities([face_view(image, c, self.deck, flip, sideways)
                                         for c, w in zip(boxes, ways_each) for sideways in w for flip in flips])
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


def combine(probs: np.ndarray, none: int | None = None, back: int | None = None, lone: bool = True,
            faces: np.ndarray | None = None, weight: float = DEFAULT.face_weight, most: float | None = None,
            config: ReaderConfig = DEFAULT) -> np.ndarray:
    """One card's probabilities from its views' (two per way of reading it, as ``views_of`` cuts
    them): each two averaged, and the surest way that reads a card counts (a way that reads
    ``NONE``, index ``none``, only when every way does: a near-square box read the wrong way up
    shows two corners without an index). With ``none`` and ``lone`` (a reader of single corners): a corner that
    shows no index (covered, cut off by the photo, or a card's blank corner) does not count against
    the other, whose reading then counts at ``config.lone_corner`` of its probability; but a ``BACK``
    (index ``back``) needs both corners. Nor does a corner read unsure of everything, where the
    other reads a card surely and the face reader reads it too (``_pair``, ``config.flat``). Not ``lone`` (a reader of
    both corners side by side, whose two views are the same corners in both orders): each two are
    simply averaged. ``faces``: a face reader's reading of the whole card, one per way, blended into
    that way's (``blend``, ``weight``; with ``lone`` and ``most``, up to ``most`` where the corners
    are sure of nothing: ``face_weight``)."""
    corners = none if lone else None
    ways = [_pair(probs[j], probs[j + 1], corners, back, None if faces is None else faces[j // 2], config)
            for j in range(0, len(probs), 2)]
    if faces is not None:
        ways = [blend(q, f, face_weight(q, weight, corners, most, config.flat)) for q, f in zip(ways, faces)]
    cards = [q for q in ways if q.argmax() != none]          # every way, without a NONE index
    return max(cards or ways, key=lambda q: q.max())


def face_weight(index: np.ndarray, weight: float, none: int | None, most: float | None = DEFAULT.face_most,
                flat: float = DEFAULT.flat) -> float:
    """How much a face reading counts beside the index reading ``index`` of a reader of single
    corners (``none``: its NONE class; None: any other reader, ``weight`` unchanged): ``weight``
    while the index reading is sure of anything (``flat`` or more), rising to ``most`` as it is
    sure of nothing (two corners covered, blurred or cut: the face shows what they do not; ``most``
    None or not above ``weight``: ``weight``). Sure that the corners show no index (``NONE``) counts
    as sure: a white box or a blank paper there is no card, however its middle reads to the face
    reader. Measured in models/reader-standard.md, "Corners read unsure of everything"."""
    if none is None or most is None or most <= weight:
        return weight
    return most - (most - weight) * min(1.0, float(index.max()) / flat)


def blend(index: np.ndarray, face: np.ndarray, weight: float = DEFAULT.face_weight) -> np.ndarray:
    """Index and face readings of the same views, as a weighted geometric mean, renormalised: a card
    both readers find likely stays sure, one that only one of them finds likely does not. (A plain
    average measured as accurate but less sure: on Namikopy's held-out cards, at 0.6, 96.3% read
    against 97.5%, both with no mistake.)"""
    tiny = np.float32(1e-12)
    log = (1 - weight) * np.log(np.maximum(index, tiny)) + weight * np.log(np.maximum(face, tiny))
    q = np.exp(log - log.max(-1, keepdims=True))
    return (q / q.sum(-1, keepdims=True)).astype(np.float32)


def _pair(a: np.ndarray, b: np.ndarray, none: int | None, back: int | None,
          face: np.ndarray | None = None, config: ReaderConfig = DEFAULT) -> np.ndarray:
    """One way's reading from its two corners ``a`` and ``b`` (see ``combine``)."""
    mean = (a + b) / 2
    if none is None:
        return mean
    if mean[none] < 0.5 and max(a[none], b[none]) >= 0.5:
        lone = (a + b) / ((1 - a[none]) + (1 - b[none]))    # the two without NONE: mostly the corner that reads
        lone[none] = 0
        if lone.argmax() != back:
            lone *= config.lone_corner
            if lone.max() > mean.max():
                return lone
    if face is not None:
        # a corner unsure of everything (something that is not plain over it) leaves a sure corner
        # to read alone where the face reader reads the same card: a fan's box read from one corner
        # is not, as its face shows more than one card
        for sure, flat in ((a, b), (b, a)):
            k = int(sure.argmax())
            if flat.max() < config.flat and sure[k] >= 0.5 and k not in (none, back) and int(face.argmax()) == k:
                return sure * config.lone_corner
    return mean


def load_image(path: Path) -> np.ndarray:
    path = Path(path)
    if not path.is_file():
        raise BadImage(say("{file}: no such image file", file=str(path)))
    data = np.fromfile(str(path), np.uint8)
    image = decode(data)
    if image is None:
        raise BadImage(say("{file}: not a readable image (empty, corrupt or not a picture)", file=str(path)))
    return image
