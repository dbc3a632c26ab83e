"""Find a card by its corner index alone, where no box of the card was found.

A standard card prints its index, a rank above a suit, in two of its corners. In a close-up
photo a card's edges can be lost (a white card on a white sheet under glare, a card mostly
beyond the photo's edge) while an index is plain to see. ``find`` looks for that index:

1. ``marks``: ink the size of an index's glyphs, darker than the paper around it (a locally
   adaptive threshold at two window sizes; a mark whose surroundings are not even, paler paper,
   such as carpet or wood grain, is no glyph);
2. ``placings``: each mark paired with a mark of similar size near it, taken as a rank above its
   suit. The pair gives the index's way up (from rank to suit) and its size, and so where the
   card it belongs to lies: the card placed so that its top-left corner region holds this index
   where the standard layout prints it (``RANK``, ``SUIT``, in ``geometry.CARD_SIZE`` pixels);
3. the deck's reader reads that card's top-left corner, as it reads every card's
   (``geometry.corner_view``): screened by the reader alone (``SCREEN``), then by it and its
   members; a placing read surely as a card (``FIRST``) is read again ``JITTERS`` ways (a little
   larger, smaller, turned, shifted), and its probability is the mean of all. A real index reads
   the same however it is framed; two pips one above the other, the likeliest impostor, read as a
   card only framed just so.

OpenCV does the image work; the pairing is this module's own, since no library finds a playing
card's index (nothing is learnt here: the reader does the reading). ``RANK`` and ``SUIT`` were
measured on the deck art; designs print indices of different sizes, so a card's size is only
guessed (``both_corners`` allows for it, and ``other_index`` reads the card's other corner
directly where the marks miss its index). How much a finding counts, and how it joins the cards
the detector found, is the reader's ``indices`` step (vision/steps/indices.py, ``ReaderConfig.index_score``). Photos only: on a
live table every card is whole and in the detector's view, and this costs a few hundred to a few
thousand reader runs a photo.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import CARD_SIZE, corner_view

RANK = (18.0, 25.0)        # where the standard layout prints the rank's centre, on a CARD_SIZE card
SUIT = (18.0, 52.0)        # and the suit's, below it
WINDOWS = (31, 71)         # the adaptive threshold's windows, in pixels of a 640-pixel photo
INK = 12                   # a mark is this many grey levels darker than its window's mean
SMALLEST = 8               # a mark at least this many pixels across (smaller is unreadable)
LARGEST = 0.3              # and at most this share of the image's longer side
FILLED = (0.12, 0.9)       # the share of its bounding box a glyph's ink fills
CONTRAST = 25              # the paper around a mark is this many grey levels paler than its ink
EVEN = 40                  # and this even (its standard deviation, grey levels) at most
PAIRED = (0.5, 1.7)        # a suit's centre lies this many times the rank's size from the rank's
SIMILAR = (0.4, 1.4)       # and the suit is this many times the rank's size
SCREEN = 0.5               # a placing the reader alone reads as a card under this is dropped
FIRST = 0.8                # and one its members together read so under this (most pairs of pips)
ALONG = (0.6, 1.5)         # a card's other index lies this many times as far as its guessed size puts it
BOTH = 0.15                # and this share of that distance off the line to it, at most
ALONG_STEP = 0.05          # read directly every this share of that distance, where marks miss it (other_index)
TURNED = np.cos(np.radians(30))   # turned round: its way down within 30 degrees of the opposite
NEAR = 0.2                 # placings of one card whose ranks lie this share of its height apart are one
# each placing is read again so: (scale, turn in degrees, shift right, shift down as shares of
# the card), about the rank's centre
JITTERS = ((0.87, 0, 0, 0), (1.15, 0, 0, 0), (1, 8, 0, 0), (1, -8, 0, 0),
           (1, 0, 0.02, 0.02), (1, 0, -0.02, -0.02))
# classes never found this way: a joker's index is a word or a picture, not a rank above a suit
NOT_AN_INDEX = ("JOKER", "BACK", "NONE")


@dataclass(frozen=True)
class Finding:
    card: str
    probability: float          # the reader's, over every framing (see the module's docstring)
    corners: np.ndarray         # the card it belongs to, top-left corner first, clockwise (pixels)

    @property
    def centre(self) -> np.ndarray:
        """The rank's centre in the image."""
        return _at(self.corners, RANK)

    @property
    def other(self) -> np.ndarray:
        """Where the rank of the card's other index (the opposite corner, turned round) lies."""
        return _at(np.roll(self.corners, -2, 0), RANK)

    @property
    def height(self) -> float:
        return float(np.linalg.norm(self.corners[3] - self.corners[0]))

    @property
    def down(self) -> np.ndarray:
        """The index's way down (from rank to suit), a unit vector."""
        return (self.corners[3] - self.corners[0]) / self.height


def _at(corners: np.ndarray, point: tuple[float, float]) -> np.ndarray:
    """A point given in CARD_SIZE pixels of the card with these corners (a similarity)."""
    w, h = CARD_SIZE
    return corners[0] + (corners[1] - corners[0]) * point[0] / w + (corners[3] - corners[0]) * point[1] / h


def marks(grey: np.ndarray) -> list[tuple[float, float, float]]:
    """Glyph-sized ink marks as (x, y, size): their centres and the longer side of their boxes,
    the larger first, each once (the two windows find most marks twice)."""
    h, w = grey.shape
    scale = max(h, w) / 640
    found = []
    for window in WINDOWS:
        window = max(3, int(round(window * scale)) | 1)
        ink = cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, window, INK)
        n, labels, stats, centres = cv2.connectedComponentsWithStats(ink)
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            size = max(bw, bh)
            if size < SMALLEST or size > LARGEST * max(h, w) or min(bw, bh) < 3 \
                    or not FILLED[0] <= area / (bw * bh) <= FILLED[1]:
                continue
            m = max(2, size // 4)
            x0, y0, x1, y1 = max(0, x - m), max(0, y - m), min(w, x + bw + m), min(h, y + bh + m)
            patch, mine = grey[y0:y1, x0:x1], labels[y0:y1, x0:x1] == i
            paper = patch[~mine & (ink[y0:y1, x0:x1] == 0)]
            if paper.size < 10 or paper.mean() - patch[mine].mean() < CONTRAST or paper.std() > EVEN:
                continue
            found.append((float(centres[i][0]), float(centres[i][1]), float(size), int(area)))
    kept: list[tuple[float, float, float, int]] = []
    for f in sorted(found, key=lambda f: -f[3]):
        if not any(abs(f[0] - k[0]) < 0.2 * k[2] and abs(f[1] - k[1]) < 0.2 * k[2] and 0.7 < f[2] / k[2] < 1.4
                   for k in kept):
            kept.append(f)
    return [(x, y, s) for x, y, s, _ in kept]


def placings(found: list[tuple[float, float, float]]) -> list[np.ndarray]:
    """For each pair of marks that could be a rank above its suit, the card that index belongs
    to: four corners, top-left first, clockwise on screen."""
    if not found:
        return []
    centres = np.array([(x, y) for x, y, _ in found], np.float64)
    sizes = np.array([s for _, _, s in found])
    w, h = CARD_SIZE
    out = []
    for i in range(len(found)):
        dist = np.linalg.norm(centres - centres[i], axis=1)
        ratio = sizes / sizes[i]
        near = (dist > PAIRED[0] * sizes[i]) & (dist < PAIRED[1] * sizes[i]) & \
            (ratio > SIMILAR[0]) & (ratio < SIMILAR[1])
        for j in np.nonzero(near)[0]:
            down = (centres[j] - centres[i]) / dist[j]
            right = np.array([down[1], -down[0]])          # a quarter turn from down, anticlockwise
            k = dist[j] / (SUIT[1] - RANK[1])              # image pixels per card pixel
            origin = centres[i] - k * (RANK[0] * right + RANK[1] * down)
            out.append(np.array([origin, origin + k * w * right, origin + k * (w * right + h * down),
                                 origin + k * h * down], np.float32))
    return out


def jittered(corners: np.ndarray, scale: float, turn: float, dx: float, dy: float) -> np.ndarray:
    """The card's corners scaled and turned about the rank's centre, then shifted."""
    rank = _at(corners, RANK)
    m = cv2.getRotationMatrix2D((float(rank[0]), float(rank[1])), turn, scale)
    moved = np.hstack([corners, np.ones((4, 1))]) @ m.T
    return (moved + dx * (corners[1] - corners[0]) + dy * (corners[3] - corners[0])).astype(np.float32)


def both_corners(found: list[Finding], f: Finding) -> bool:
    """Whether the other index of ``f``'s card is found too: the same card, turned round, on the
    line from ``f``'s index to where its card's other index would be (``Finding.other``),
    ``ALONG`` times that far (a card's size is guessed from its index, and designs print indices
    of different sizes), and within ``BOTH`` of that distance of the line."""
    axis = f.other - f.centre
    length = float(np.linalg.norm(axis))
    for g in found:
        if g is f or g.card != f.card:
            continue
        d = g.centre - f.centre
        along = float(d @ axis) / length ** 2
        across = abs(float(d[0] * axis[1] - d[1] * axis[0])) / length
        if ALONG[0] <= along <= ALONG[1] and across <= BOTH * length and float(g.down @ f.down) < -TURNED:
            return True
    return False


def other_index(image: np.ndarray, reader, f: Finding, deck: str = "standard") -> bool:
    """Whether ``f``'s card shows its other index where ``both_corners`` looks for it, read
    directly: the corner of the card turned round, every ``ALONG_STEP`` along the line to it
    (``ALONG`` times as far as the guessed card puts it), read by ``reader`` as ``f``'s card at
    ``FIRST`` or more somewhere. For an index the ink-mark step misses (in shadow, under glare:
    its contrast under ``CONTRAST``) while the one at the other corner is found."""
    axis = f.other - f.centre
    turned = np.roll(f.corners, -2, 0)                  # the card seen from its other corner
    steps = np.arange(ALONG[0], ALONG[1] + 1e-9, ALONG_STEP)
    p = reader.probabilities([corner_view(image, (turned + (a - 1) * axis).astype(np.float32), deck) for a in steps])
    k = reader.names.index(f.card)
    return bool(((p.argmax(1) == k) & (p[:, k] >= FIRST)).any())


def find(image: np.ndarray, reader, deck: str = "standard") -> list[Finding]:
    """Every index ``reader`` (an ``IndexReader`` of single corners) reads as a card in ``image``,
    once per card and place, the surest first."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    cards = placings(marks(grey))
    if not cards:
        return []
    names = reader.names

    def read_as_card(p: np.ndarray, level: float) -> bool:
        return p.max() >= level and names[int(p.argmax())] not in NOT_AN_INDEX

    views = [corner_view(image, c, deck) for c in cards]
    # screened by the reader alone, then read by all its members: a cluttered photo pairs
    # thousands of marks, nearly all read as no card by the first reader already
    screened = [i for i, p in enumerate(reader.probabilities(views, alone=True)) if read_as_card(p, SCREEN)]
    first = reader.probabilities([views[i] for i in screened])
    todo: list[tuple[np.ndarray, int, float]] = []           # (card, class, first probability)
    for i, p in sorted(zip(screened, first), key=lambda t: -t[1].max()):
        if not read_as_card(p, FIRST):
            continue
        k = int(p.argmax())
        height = float(np.linalg.norm(cards[i][3] - cards[i][0]))
        if not any(k == j and np.linalg.norm(_at(c, RANK) - _at(cards[i], RANK)) < NEAR * height for c, j, _ in todo):
            todo.append((cards[i], k, float(p[k])))          # the same index paired twice is read once
    if not todo:
        return []
    again = reader.probabilities([corner_view(image, jittered(c, *j), deck) for c, _, _ in todo for j in JITTERS])
    again = again.reshape(len(todo), len(JITTERS), -1)
    findings = [Finding(names[k], (p + float(ps[:, k].sum())) / (1 + len(JITTERS)), c)
                for (c, k, p), ps in zip(todo, again)]
    findings.sort(key=lambda f: -f.probability)
    kept: list[Finding] = []
    for f in findings:          # the same card found again at the same place (another pair of marks)
        if not any(k.card == f.card and np.linalg.norm(k.centre - f.centre) < 0.5 * f.height for k in kept):
            kept.append(f)
    return kept
