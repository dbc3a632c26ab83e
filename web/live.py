"""The live table: camera frames -> card reader -> tracker -> glue -> referee -> dashboard.

The glue, from the tracker's observations to checked referee events (nothing is announced that the
rules or the deck refuse, or that was read below the threshold: the table is asked to show the card
again), is table logic and lives beside the referee's events: ``referee.observe.Observer``. ``Glue``
here only wires it to the server's GameKeeper (web/keeper.py). A ruling that decides a battle
keeps the frame that decided it, cards boxed, as a JPEG in the store.

``Live`` runs a camera (``vision.sources.WatchedSource``) for the server: it reads each new frame
(in a worker thread), tracks it and applies the observations on the event loop under the game
keeper's lock, keeps the latest frame for ``/api/preview.jpg`` and the camera's photo
(``/api/snapshot.jpg``), and pushes ``camera`` messages when the camera's status changes and every
2 s. Camera faults only change the camera's status: the game is never touched. It always takes the
camera's newest frame (a threaded camera keeps no queue) and counts the frames it never took
(``dropped``). With a live reader (``ReaderConfig.reuse``) a frame whose picture is that of one of
the last two frames read (no pixel of a quarter-size grey copy more than ``reuse_change`` grey
levels from it) keeps that frame's reads without reading it again (``kept``): a still table costs
next to nothing, and so does the table again as it was before a hand passed over it, so the loop
keeps up with the camera.
"""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Callable

import cv2
import numpy as np

from referee.observe import Observer
from referee.say import message_field
from vision.config import LIVE
from vision.draw import draw_reads
from vision.tracker import TableTracker, default_zones

CAMERA_PUSH_S = 2.0
JPEG_QUALITY = 80
STILL_SCALE = 4           # frames are compared as grey copies this many times smaller each way
STILL_KEEP = 2            # with the last this many frames read


def jpeg(image: np.ndarray, quality: int = JPEG_QUALITY) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return data.tobytes()


class Glue(Observer):
    """The referee's ``Observer`` (referee/observe.py) wired to the dashboard's server: ``keeper``
    is web.keeper.GameKeeper. The table checked is that of its game under way; events go through
    ``keeper.submit`` (stored, the deciding frame kept as the battle's photo, pushed like any
    other) and ``reask`` messages through ``keeper.hub.broadcast``."""

    def __init__(self, keeper: Any, threshold: float = LIVE.announce, clock: Callable[[], float] = time.monotonic):
        self.keeper = keeper

        def table():
            session = getattr(keeper, "session", None)
            return None if session is None else session.table

        super().__init__(table, lambda event, photo: keeper.submit(event, photo=photo)["rulings"],
                         lambda pushed: keeper.hub.broadcast(with_message(pushed)), threshold=threshold, clock=clock)


def with_message(pushed: dict[str, Any], text: str = "text", key: str = "msg") -> dict[str, Any]:
    """A push with its sentence's message beside its English text (``msg`` beside a re-ask's ``text``,
    ``message_msg`` beside the camera's ``message``), so each screen says it in its own language; as it
    is when its text has none."""
    return {**pushed, **message_field(pushed.get(text), key)}


class Live:
    """A camera attached to the server: frames in, observations to the glue, status and previews out.

    ``camera``: a WatchedSource. ``threaded``: read it with its own thread (a real camera, a paced
    feed) and always take the newest frame; else poll it once per step (tests, an unpaced demo).
    ``on_start(keeper)`` runs once under the lock before the first frame (the demo sets up its
    game); ``on_frame(live)`` after each frame (returns True to stop). ``make_reader(deck)``: a
    reader of another deck (``TableReader(deck, LIVE)``), for a game set up with its own ``deck``
    (a taught one, chosen in the dashboard's set-up): made once when the game it follows changes to
    that deck, in a worker thread; a game without one is read by ``reader``."""

    def __init__(self, camera: Any, reader: Any, *, threshold: float = LIVE.announce, stable_frames: int = LIVE.stable_frames,
                 threaded: bool = True, zones: dict[str, Any] | None = None,
                 on_start: Callable[[Any], None] | None = None, on_frame: Callable[["Live"], bool] | None = None,
                 clock: Callable[[], float] = time.monotonic, make_reader: Callable[[str], Any] | None = None):
        self.camera = camera
        self.reader = reader
        self.default_reader = reader
        self.make_reader = make_reader
        self._readers: dict[str, Any] = {}          # deck -> reader made for it (the current game's)
        self._unreadable: set[str] = set()          # decks whose reader could not be made
        self.threshold = threshold
        self.stable_frames = stable_frames
        self.threaded = threaded
        self.zones_override = zones
        self.on_start, self.on_frame = on_start, on_frame
        self.clock = clock
        self.keeper: Any = None            # web/keeper.py's GameKeeper (attach)
        self.glue: Glue | None = None
        self.tracker: TableTracker | None = None
        self.game_id: int | None = None
        self.frames = 0                    # frames processed
        self.started = clock()
        self.latest: tuple[np.ndarray, list] | None = None
        self._lock = threading.Lock()
        self._stop = False
        self._last_push = 0.0
        self._last_status: tuple | None = None
        self._proc_times: list[float] = []
        self.errors = 0
        self.dropped = 0                   # frames the camera gave that were never taken (a newer one was)
        self.kept = 0                      # frames whose picture had not changed: the last reads kept
        self._last_index: int | None = None
        self._still: list[tuple[np.ndarray, list]] = []   # (grey copy, reads) of the last frames read, newest first

    # -- status and pictures ---------------------------------------------------------------------
    def camera_json(self) -> dict[str, Any]:
        status = dict(self.camera.status_dict())
        status.setdefault("fps", 0.0)
        return with_message(status, "message", "message_msg")

    def photo_jpeg(self) -> bytes | None:
        """The camera's photo: its latest frame as it came, nothing drawn (``/api/snapshot.jpg``)."""
        with self._lock:
            latest = self.latest
        return None if latest is None else jpeg(latest[0])

    def preview_jpeg(self) -> bytes | None:
        with self._lock:
            latest = self.latest
        if latest is None:
            return None
        image, reads = latest
        out = draw_reads(image, reads, 0.3)
        h, w = out.shape[:2]
        zones = self.tracker.zones if self.tracker is not None else {}
        for seat, poly in zones.items():
            pts = np.array([[x * w, y * h] for x, y in poly], np.int32)
            cv2.polylines(out, [pts], True, (240, 240, 240), 1, cv2.LINE_AA)
            cx, cy = pts.mean(0).astype(int)
            cv2.putText(out, seat, (int(cx) - 30, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (240, 240, 240), 2,
                        cv2.LINE_AA)
        cam = self.camera_json()
        text = f"{cam.get('fps', 0):.1f} fps  frame {cam.get('frame')}  {cam.get('status')}"
        cv2.rectangle(out, (0, 0), (12 + 11 * len(text), 34), (0, 0, 0), -1)
        cv2.putText(out, text, (6, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2, cv2.LINE_AA)
        return jpeg(out)

    def zones_changed(self, seats: dict[str, Any]) -> None:
        if self.tracker is not None:
            self.tracker.zones = seats

    def push_camera(self, force: bool = False) -> None:
        if self.keeper is None:
            return
        status = self.camera_json()
        key = (status.get("status"), status.get("message"))
        now = self.clock()
        if force or key != self._last_status or now - self._last_push >= CAMERA_PUSH_S:
            self._last_status, self._last_push = key, now
            self.keeper.hub.broadcast({"type": "camera", "camera": status})

    # -- the game the camera watches ---------------------------------------------------------------
    def _follow_game(self, size: tuple[int, int]) -> None:
        session = self.keeper.session
        gid = session.record.id if session is not None else None
        if gid != self.game_id or self.tracker is None:
            self.game_id = gid
            if self.glue is None:
                self.glue = Glue(self.keeper, self.threshold, self.clock)
            else:
                self.glue.reset()
            if session is None:
                self.tracker = None
                return
            zones = self.zones_override or self.keeper.zones() or \
                default_zones([p["name"] for p in session.record.players])
            self.tracker = TableTracker(zones, size, stable_frames=self.stable_frames, threshold=self.threshold)
        elif tuple(self.tracker.frame_size) != tuple(size):
            self.tracker.frame_size = size

    # -- the deck the game is played with ---------------------------------------------------------
    def wanted_deck(self) -> str | None:
        """The deck the current game was set up with, when it is not the default reader's; else None."""
        if self.make_reader is None or self.keeper is None:
            return None
        session = getattr(self.keeper, "session", None)
        deck = getattr(getattr(session, "record", None), "deck", None) if session is not None else None
        if not deck or deck == getattr(self.default_reader, "name", None) or deck in self._unreadable:
            return None
        return deck

    def reader_for(self, deck: str | None) -> Any:
        """The reader of ``deck`` (None: the default one), made once (the slow part: call it off the
        event loop)."""
        if deck is None:
            return self.default_reader
        if deck not in self._readers:
            try:
                reader = self.make_reader(deck)
            except Exception as err:  # a deck deleted since the set-up: the default reader goes on
                self._unreadable.add(deck)
                print(f"warref live: cannot read deck {deck!r} ({err}); reading with the "
                      f"{getattr(self.default_reader, 'name', 'default')} deck", flush=True)
                return self.default_reader
            self._readers = {deck: reader}           # only the current game's deck is kept
        return self._readers[deck]

    def _use(self, reader: Any) -> None:
        if reader is not self.reader:
            self.reader = reader
            self._still = []                         # reads of the other reader are not this one's

    def follow_deck(self) -> None:
        """Switch to the reader of the current game's deck (synchronously: tests, ``step``)."""
        if self.make_reader is not None:
            self._use(self.reader_for(self.wanted_deck()))

    async def follow_deck_async(self) -> None:
        """``follow_deck`` with a new reader made in a worker thread (the server's camera task)."""
        if self.make_reader is None:
            return
        deck = self.wanted_deck()
        if deck is not None and deck not in self._readers:
            reader = await asyncio.to_thread(self.reader_for, deck)
        else:
            reader = self.reader_for(deck)
        self._use(reader)

    def read(self, image: np.ndarray) -> list:
        """The reader's reads of ``image``; with a live reader (``reuse``), those of one of the last
        ``STILL_KEEP`` frames read when no pixel of a quarter-size grey copy differs from it by more
        than ``reuse_change`` grey levels (the table as it was before a hand passed over it, too)."""
        config = getattr(self.reader, "config", None)
        if not getattr(config, "reuse", False):
            return self.reader.read(image)
        h, w = image.shape[:2]
        small = cv2.resize(image, (max(1, w // STILL_SCALE), max(1, h // STILL_SCALE)), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        for before, reads in self._still:
            if before.shape == grey.shape and int(cv2.absdiff(before, grey).max()) <= config.reuse_change:
                self.kept += 1
                return list(reads)
        reads = self.reader.read(image)
        self._still = [(grey, list(reads))] + self._still[:STILL_KEEP - 1]
        return reads

    def apply(self, frame: Any, reads: list) -> list[dict[str, Any]]:
        """Track one frame's reads and hand the observations to the glue (under the game keeper's lock)."""
        h, w = frame.image.shape[:2]
        with self._lock:
            self.latest = (frame.image, reads)
        self.frames += 1
        if self._last_index is not None and frame.index > self._last_index:
            self.dropped += frame.index - self._last_index - 1
        self._last_index = frame.index
        self._follow_game((w, h))
        if self.tracker is None or self.glue is None:
            return []
        observations = self.tracker.update(reads, frame.index)
        if not observations:
            return []
        image, glue = frame.image, self.glue
        return glue.handle(observations, photo=lambda: jpeg(draw_reads(image, reads, glue.threshold)))

    def _next_frame(self):
        if self.threaded:
            return self.camera.read(timeout=0.25)
        frame = self.camera.poll()
        return frame

    def step(self) -> list[dict[str, Any]] | None:
        """One frame, synchronously (tests, benchmarks): None when no new frame came."""
        frame = self._next_frame()
        self.push_camera()
        if frame is None:
            return None
        self.follow_deck()
        reads = self.read(frame.image)
        return self.apply(frame, reads)

    def attach(self, keeper: Any) -> None:
        self.keeper = keeper
        if self.on_start is not None:
            self.on_start(keeper)

    def stop(self) -> None:
        self._stop = True

    async def run(self, keeper: Any) -> None:
        """The camera task of the server (create_app(live=...))."""
        async with keeper.lock:
            self.attach(keeper)
        if self.threaded:
            self.camera.start()
        try:
            while not self._stop:
                frame = await asyncio.to_thread(self._next_frame)
                self.push_camera()
                if frame is None:
                    if self.on_frame is not None and self.on_frame(self):
                        break
                    if getattr(self.camera, "ended", False):
                        await asyncio.sleep(0.5)
                    elif not self.threaded:
                        await asyncio.sleep(0.01)
                    continue
                try:
                    await self.follow_deck_async()
                    reads = await asyncio.to_thread(self.read, frame.image)
                    async with keeper.lock:
                        self.apply(frame, reads)
                except Exception as err:  # a fault here must not stop the camera task
                    self.errors += 1
                    print(f"warref live: frame {frame.index} skipped: {err!r}", flush=True)
                if self.on_frame is not None and self.on_frame(self):
                    break
        finally:
            await asyncio.to_thread(self.camera.close)
            self.push_camera(force=True)
