"""The table tracker: noisy per-frame card reads in, stable per-seat observations out.

    tracker = TableTracker(default_zones(["Alex", "Olivia"]), frame_size=(1280, 720))
    for frame in source:
        for obs in tracker.update(reader.read(frame.image), frame.index):
            ...   # Observation(kind="flip", seat="Alex", card="8S", ...)

Rules (``stable_frames`` = n, ``threshold`` = t):

- A read belongs to the seat whose zone (a polygon, as fractions of the frame) holds its box centre;
  reads outside every zone are ignored, and so are face-up reads below ``floor`` (detector noise).
- A face-up card is followed from frame to frame by place (box IoU > 0.5). It is a **flip** when its
  last n sightings read the same code with confidence >= t, or sooner when its last ``sure_frames``
  (2) sightings read the same code with confidence >= ``sure`` (0.95). Each physical card is announced
  once: a card that stays is not announced again, nor one that comes back (same code, same place)
  after being covered; a new card beside an earlier one, or on top of it with another code, is a new flip.
- A card seen in place n times whose reads are below t or disagree gives one **unsure** (its best
  code and confidence), so the caller can ask to show it again; not again for the same card unless
  it is shown again (taken away and put back) or its best reading becomes a code not read before.
  No unsure while its last ``cover_frames`` (3n) sightings all read one code, one of them >= t: the
  card is readable and something is passing over it (a hand), or it is settling; nor for a best
  code announced at that seat on a box it overlaps (that card, partly covered).
- Face-down cards ("BACK") are counted per seat; a count held for n frames that is higher than any
  before at that seat (since the last collection) gives **down** with ``count`` = the rise. Fewer
  backs (one covered by the war's face-up card, a hand) give nothing.
- When every zone has been empty for n frames after holding cards: one **collected**, and the
  tracker forgets everything (the next battle).
- A card missing from the reads counts as gone only after n frames, so a hand passing over the cards
  makes no noise.

The vision package knows nothing of the rules of any game: what a flip means is the referee's business.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from .config import LIVE
from .reading import iou

if TYPE_CHECKING:                  # only the shape of a read is used: box, card, confidence
    from .reader import Read

Zone = list[tuple[float, float]]
MARGIN = 0.08         # default zones leave this fraction of the frame at each edge (the players' own piles)


def default_zones(seats: Sequence[str]) -> dict[str, Zone]:
    """One polygon per seat (any number: Casino War seats 1-7, Guerra 6) around the middle of the
    frame, as fractions of its width and height: seat 1 at the bottom (facing the camera), the others
    around the table clockwise as the camera sees it (2 seats: bottom, top; 3: bottom, upper left,
    upper right; 4: bottom, left, top, right). Each zone is the slice of the middle (the frame less
    ``MARGIN`` at the edges) in front of its player, meeting the others at the centre; one seat has the
    whole middle. The dashboard draws the same (web/static/app.js, ``defaultZones``)."""
    seats = list(seats)
    if not seats:
        raise ValueError("default zones need at least one seat")
    n = len(seats)
    half = 0.5 - MARGIN
    corners = (45.0, 135.0, 225.0, 315.0)

    def edge(deg: float) -> tuple[float, float]:
        a = math.radians(deg)
        c, s = math.cos(a), math.sin(a)
        t = min(half / abs(c) if abs(c) > 1e-9 else math.inf, half / abs(s) if abs(s) > 1e-9 else math.inf)
        return (round(0.5 + t * c, 4), round(0.5 + t * s, 4))

    zones: dict[str, Zone] = {}
    for i, seat in enumerate(seats):
        mid = 90.0 + i * 360.0 / n          # 90 degrees points down the image (y grows downwards)
        a0, a1 = mid - 180.0 / n, mid + 180.0 / n
        angles = [a0] + sorted(c + k * 360 for c in corners for k in (-1, 0, 1) if a0 < c + k * 360 < a1) + [a1]
        poly = [(0.5, 0.5)] + [edge(a) for a in angles]
        out: Zone = []
        for p in poly:
            if not out or p != out[-1]:
                out.append(p)
        zones[seat] = out
    return zones


@dataclass
class Observation:
    kind: str                         # "flip" | "down" | "collected" | "unsure"
    seat: str | None
    card: str | None
    count: int = 0                    # down: cards laid face down; collected: cards that were on the table
    confidence: float = 0.0
    frame: int = 0                    # the frame that confirmed it
    box: list[int] | None = None      # the card (down: all the seat's backs), pixels x0, y0, x1, y1
    reads: list | None = None         # every read of the confirming frame (for the photo)


@dataclass
class Held:
    """A face-up card the tracker holds at a seat (read-only view)."""
    card: str
    box: list[int]
    confidence: float
    frame: int                        # the frame it was announced in


def _inside(x: float, y: float, poly: Sequence[tuple[float, float]]) -> bool:
    """Even-odd rule; points on an edge count as inside for the lower/left edges only."""
    inside = False
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        if (y0 > y) != (y1 > y):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            if x < xc:
                inside = not inside
    return inside


@dataclass
class _Track:
    """One face-up card place at a seat."""
    box: list[int]
    seen: deque = field(default_factory=deque)   # (code, confidence) of the latest sightings
    sightings: int = 0
    missing: int = 0
    announced: str | None = None                 # the code announced for the card lying here now
    announced_frame: int = 0
    announced_conf: float = 0.0
    unsure: set = field(default_factory=set)     # codes read when it was reported unsure


@dataclass
class _Seat:
    tracks: list[_Track] = field(default_factory=list)
    backs_run: int = -1            # the back count of the current run of equal counts
    backs_run_len: int = 0
    backs_stable: int = 0          # the latest count held for n frames
    backs_high: int = 0            # the highest stable count since the last collection
    backs_box: list[int] | None = None
    gone: list[tuple[str, list[int]]] = field(default_factory=list)   # announced cards no longer seen


class TableTracker:
    """Turns per-frame reads into flips, downs, unsures and collections per seat (see the module doc).

    ``zones`` (seat -> polygon in fractions), ``frame_size`` (w, h pixels), ``stable_frames`` and
    ``threshold`` may be changed at any time. ``floor``: face-up reads below it are ignored as noise;
    ``back_threshold``: backs below it are not counted; ``unsure_frames`` (default ``stable_frames``):
    sightings before an unreadable card is reported unsure; ``sure`` and ``sure_frames``: a card read
    this surely in this many sightings is a flip before ``stable_frames`` (``sure`` None: never);
    ``cover_frames`` (default 3 x ``stable_frames``): how long one sure reading of a card holds off
    its unsure while it reads less surely as the same code (a hand over it)."""

    def __init__(self, zones: dict[str, Sequence[tuple[float, float]]], frame_size: tuple[int, int] = (1280, 720),
                 stable_frames: int = LIVE.stable_frames, threshold: float = LIVE.announce, floor: float = 0.3, back_threshold: float = 0.5,
                 unsure_frames: int | None = None, sure: float | None = LIVE.announce_sure, sure_frames: int = LIVE.sure_frames,
                 cover_frames: int | None = None):
        self._zones: dict[str, list[tuple[float, float]]] = {}
        self._frame_size = (int(frame_size[0]), int(frame_size[1]))
        self.stable_frames = int(stable_frames)
        self.threshold = float(threshold)
        self.floor = float(floor)
        self.back_threshold = float(back_threshold)
        self.unsure_frames = unsure_frames
        self.sure = sure
        self.sure_frames = int(sure_frames)
        self.cover_frames = cover_frames
        self._seats: dict[str, _Seat] = {}
        self._empty = 0
        self._held = False
        self.zones = zones

    # -- settings -------------------------------------------------------------------------------

    @property
    def zones(self) -> dict[str, list[tuple[float, float]]]:
        return {seat: list(poly) for seat, poly in self._zones.items()}

    @zones.setter
    def zones(self, zones: dict[str, Sequence[tuple[float, float]]]) -> None:
        clean = {}
        for seat, poly in zones.items():
            pts = [(float(x), float(y)) for x, y in poly]
            if len(pts) < 3:
                raise ValueError(f"the zone of {seat} needs at least 3 points, not {len(pts)}")
            clean[seat] = pts
        self._zones = clean
        self._seats = {seat: self._seats.get(seat, _Seat()) for seat in clean}

    @property
    def frame_size(self) -> tuple[int, int]:
        return self._frame_size

    @frame_size.setter
    def frame_size(self, size: tuple[int, int]) -> None:
        self._frame_size = (int(size[0]), int(size[1]))

    # -- read-only views ------------------------------------------------------------------------

    @property
    def faceup(self) -> dict[str, list[Held]]:
        """The announced face-up cards lying at each seat now, in the order they were announced."""
        out = {}
        for seat, s in self._seats.items():
            cards = [Held(t.announced, list(t.box), t.announced_conf, t.announced_frame)
                     for t in s.tracks if t.announced is not None]
            out[seat] = sorted(cards, key=lambda h: h.frame)
        return out

    @property
    def backs(self) -> dict[str, int]:
        """The stable number of face-down cards seen at each seat now."""
        return {seat: s.backs_stable for seat, s in self._seats.items()}

    @property
    def down(self) -> dict[str, int]:
        """Face-down cards announced at each seat since the last collection."""
        return {seat: s.backs_high for seat, s in self._seats.items()}

    def holding(self) -> dict[str, dict]:
        """JSON-ready: {seat: {"faceup": [{"card", "box", "confidence"}], "backs": n, "down": m}}."""
        up, backs = self.faceup, self.backs
        return {seat: {"faceup": [{"card": h.card, "box": h.box, "confidence": round(h.confidence, 4)}
                                  for h in up[seat]],
                       "backs": backs[seat], "down": self._seats[seat].backs_high} for seat in self._seats}

    def reset(self) -> None:
        """Forget everything (a new game, or the table cleared by hand)."""
        self._seats = {seat: _Seat() for seat in self._zones}
        self._empty = 0
        self._held = False

    # -- the work -------------------------------------------------------------------------------

    def seat_of(self, read: Read) -> str | None:
        """The seat whose zone holds the read's box centre (the nearest zone centre if two do)."""
        w, h = self._frame_size
        x0, y0, x1, y1 = read.box
        x, y = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
        hits = [seat for seat, poly in self._zones.items() if _inside(x, y, poly)]
        if len(hits) <= 1:
            return hits[0] if hits else None

        def dist(seat):
            poly = self._zones[seat]
            cx, cy = sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly)
            return (cx - x) ** 2 + (cy - y) ** 2
        return min(hits, key=dist)

    def update(self, reads: list[Read], frame: int) -> list[Observation]:
        """Take one frame's reads; return what became certain with it (often nothing)."""
        n = max(1, int(self.stable_frames))
        faces: dict[str, list[Read]] = {seat: [] for seat in self._zones}
        backs: dict[str, list[Read]] = {seat: [] for seat in self._zones}
        for r in reads:
            seat = self.seat_of(r)
            if seat is None:
                continue
            if r.card == "BACK":
                if r.confidence >= self.back_threshold:
                    backs[seat].append(r)
            elif r.confidence >= self.floor:
                faces[seat].append(r)

        out: list[Observation] = []
        for seat, state in self._seats.items():
            out += self._faces(seat, state, faces[seat], frame, reads, n)
            out += self._backs(seat, state, backs[seat], frame, reads, n)

        if any(faces.values()) or any(backs.values()):
            self._empty = 0
        else:
            self._empty += 1
            if self._held and self._empty >= n:
                total = sum(s.backs_high + len(s.gone) + sum(t.announced is not None for t in s.tracks)
                            for s in self._seats.values())
                out.append(Observation("collected", None, None, count=total, frame=frame, reads=list(reads)))
                self.reset()
        return out

    def _faces(self, seat: str, state: _Seat, found: list[Read], frame: int, reads: list[Read],
               n: int) -> list[Observation]:
        out = []
        # match reads to the places already followed, best overlap first
        pairs = sorted(((iou(t.box, r.box), ti, ri) for ti, t in enumerate(state.tracks)
                        for ri, r in enumerate(found)), reverse=True)
        used_t, used_r = set(), set()
        matched: list[tuple[_Track, Read]] = []
        for overlap, ti, ri in pairs:
            if overlap <= 0.5:
                break
            if ti in used_t or ri in used_r:
                continue
            used_t.add(ti)
            used_r.add(ri)
            matched.append((state.tracks[ti], found[ri]))
        for ri, r in enumerate(found):
            if ri not in used_r:
                t = _Track(list(r.box))
                state.tracks.append(t)
                matched.append((t, r))
        seen_now = {id(t) for t, _ in matched}
        for t in list(state.tracks):
            if id(t) in seen_now:
                continue
            t.missing += 1
            if t.missing >= n:                # gone: taken away, or covered for good
                state.tracks.remove(t)
                if t.announced is not None:
                    state.gone.append((t.announced, t.box))

        unsure_after = max(n, int(self.unsure_frames or n))
        cover = max(1, int(self.cover_frames or 3 * n))
        quick = min(n, max(1, self.sure_frames)) if self.sure is not None else n
        for t, r in matched:
            t.missing = 0
            t.box = list(r.box)
            t.seen.append((r.card, float(r.confidence)))
            while len(t.seen) > max(n, unsure_after, cover):
                t.seen.popleft()
            t.sightings += 1
            if t.sightings < quick:
                continue
            seen = list(t.seen)
            last = seen[-n:] if t.sightings >= n else []
            sure = bool(last) and len({c for c, _ in last}) == 1 and all(p >= self.threshold for _, p in last)
            if not sure and quick < n:        # read very surely in the last sure_frames sightings
                fast = seen[-quick:]
                if len({c for c, _ in fast}) == 1 and all(p >= max(self.sure, self.threshold) for _, p in fast):
                    sure, last = True, fast
            if t.announced is not None and any(c == t.announced for c, _ in seen[-n:]):
                continue                      # the announced card is still the one lying here
            if sure:
                code = last[0][0]
                conf = sum(p for _, p in last) / len(last)
                self._held = True
                back_again = None
                if t.announced is None:
                    back_again = next((g for g in state.gone if g[0] == code and iou(g[1], t.box) > 0.5), None)
                    if back_again is not None:
                        state.gone.remove(back_again)
                if t.announced is not None:
                    state.gone.append((t.announced, list(t.box)))
                t.announced, t.announced_frame, t.announced_conf = code, frame, conf
                t.unsure.clear()
                if back_again is not None:    # the same card uncovered again: already announced
                    continue
                out.append(Observation("flip", seat, code, confidence=conf, frame=frame, box=list(r.box),
                                       reads=list(reads)))
            elif t.sightings >= unsure_after:
                recent = seen[-cover:]
                if len({c for c, _ in recent}) == 1 and max(p for _, p in recent) >= self.threshold:
                    continue                  # read surely of late, one code: covered or settling, wait
                window = seen[-unsure_after:]
                if t.announced is not None:
                    window = [(c, p) for c, p in window if c != t.announced]
                score: dict[str, float] = {}
                for c, p in window:
                    score[c] = score.get(c, 0.0) + p
                best = max(score, key=score.get)
                if best in t.unsure:
                    continue
                here = [(x.announced, x.box) for x in state.tracks if x is not t and x.announced] + state.gone
                if any(code == best and iou(box, t.box) > 0 for code, box in here):
                    continue                  # the card announced here, partly covered: not news
                run = 0
                for c, p in reversed(window):
                    if c != best or p < self.threshold:
                        break
                    run += 1
                if run and run == sum(c == best for c, _ in window):
                    continue                  # sure readings coming in after worse ones: wait for them
                t.unsure |= {c for c, _ in window}
                conf = max(p for c, p in window if c == best)
                out.append(Observation("unsure", seat, best, confidence=conf, frame=frame, box=list(r.box),
                                       reads=list(reads)))
        return out

    def _backs(self, seat: str, state: _Seat, found: list[Read], frame: int, reads: list[Read],
               n: int) -> list[Observation]:
        count = len(found)
        if count == state.backs_run:
            state.backs_run_len += 1
        else:
            state.backs_run, state.backs_run_len = count, 1
        if found:
            state.backs_box = [min(r.box[0] for r in found), min(r.box[1] for r in found),
                               max(r.box[2] for r in found), max(r.box[3] for r in found)]
        if state.backs_run_len < n:
            return []
        state.backs_stable = count
        if count <= state.backs_high:
            return []
        rise, state.backs_high = count - state.backs_high, count
        self._held = True
        conf = min(r.confidence for r in found)
        return [Observation("down", seat, None, count=rise, confidence=conf, frame=frame,
                            box=list(state.backs_box) if state.backs_box else None, reads=list(reads))]
