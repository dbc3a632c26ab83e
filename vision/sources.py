"""Where frames come from: a webcam, a video file, a folder of images, a stream URL, or frames in memory.

    source = open_source("0")            # webcam 0; or "game.mp4", "shots/", "rtsp://...", "http://..."
    while (frame := source.read()) is not None:
        reads = reader.read(frame.image)
    source.close()

``WatchedSource`` runs any source for a live table: it never raises on a camera fault, notices within
a second when the camera is unplugged (reads fail) or frozen (no new picture), says so in
``status``/``message``, reconnects with backoff, and keeps the frame rate:

    cam = WatchedSource(lambda: open_source("0"), source="0", on_status=print)
    cam.start()                           # a background thread reads; or call cam.poll() yourself
    frame = cam.read(timeout=1.0)         # the next new frame, or None (cam.status_dict() says why)
    cam.close()

``ListSource`` (alias ``FakeSource``) plays frames from memory and can be told to fail or freeze for a
while: for tests and the demo (``WatchedSource(fake.reopen)`` reconnects to the same fake). Every clock here is injectable (``clock=``), so tests need not sleep.
"""
from __future__ import annotations

import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np

from referee.say import Decimal, say

from .decode import SUFFIXES, decode
from .errors import VisionError

IMAGE_SUFFIXES = SUFFIXES
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv", ".flv")
STREAM_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "rtmp://", "udp://", "tcp://")
STATUSES = ("ok", "lost", "frozen", "reconnecting", "off")
BACKOFF = (0.5, 1.0, 2.0, 4.0, 5.0)      # seconds between reconnect attempts; the last one repeats


class SourceError(VisionError):
    """A frame source that cannot be opened or read. ``permanent`` when retrying cannot help
    (no such file, not a video, empty folder), as opposed to a camera that may come back."""

    def __init__(self, message: str, permanent: bool = False):
        super().__init__(message)
        self.permanent = permanent


@dataclass
class Frame:
    image: np.ndarray        # BGR
    index: int               # 0, 1, 2... per source (a WatchedSource numbers on across reconnects)
    t: float                 # time.monotonic() (or the injected clock) when it was captured


class Source:
    """A source of frames. ``read`` gives the next one, or None at the end of a file or folder; a live
    source that fails raises ``SourceError``."""

    clock: Callable[[], float] = time.monotonic

    def read(self) -> Frame | None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return type(self).__name__

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        while (frame := self.read()) is not None:
            yield frame


class CaptureSource(Source):
    """A webcam index, a video file or a stream URL, through ``cv2.VideoCapture``."""

    def __init__(self, spec: str | int, clock: Callable[[], float] = time.monotonic, loop: bool = False,
                 width: int | None = None, height: int | None = None):
        self.spec = str(spec)
        self.clock = clock
        self.loop = loop
        self.index = 0
        self.camera = isinstance(spec, int) or is_camera_index(self.spec.strip())
        self.stream = self.spec.lower().startswith(STREAM_PREFIXES)
        self.live = self.camera or self.stream
        self._pending: np.ndarray | None = None     # a video's first picture, read to check it plays
        if self.camera:
            self.cap = cv2.VideoCapture(int(self.spec))
            if width:
                self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            if height:
                self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            if not self.cap.isOpened():
                self.cap.release()
                raise SourceError(say("Camera {spec} is not available: check that it is plugged in and not used by "
                                      "another program, or try another index (0, 1, 2...).", spec=self.spec))
        elif self.stream:
            self.cap = cv2.VideoCapture(self.spec)
            if not self.cap.isOpened():
                self.cap.release()
                raise SourceError(say("Cannot open the stream {spec}: check the address and that the camera is on "
                                      "the network.", spec=self.spec))
        else:
            path = Path(self.spec)
            if not path.exists():
                raise SourceError(say("{spec}: no such file or folder.", spec=self.spec), permanent=True)
            self.cap = cv2.VideoCapture(str(path))
            ok = self.cap.isOpened()
            first = self.cap.read() if ok else (False, None)
            if not first[0]:
                self.cap.release()
                raise SourceError(say("{spec}: not a video this computer can play (give a video file, a folder of "
                                      "images, a camera index or a stream URL).", spec=self.spec), permanent=True)
            self._pending = first[1]

    def read(self) -> Frame | None:
        if self.cap is None:
            raise SourceError(say("{source} is closed.", source=self.describe()))
        if self._pending is not None:
            image, self._pending = self._pending, None
        else:
            ok, image = self.cap.read()
            if not ok or image is None:
                if self.live:
                    raise SourceError(say("{source} stopped sending pictures.", source=self.describe()))
                if not self.loop or self.index == 0:
                    return None
                self.cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self.cap.read()
                if not ok:
                    return None
        frame = Frame(image, self.index, self.clock())
        self.index += 1
        return frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None

    def describe(self) -> str:
        if self.camera:
            return say("camera {spec}", spec=self.spec)
        if self.stream:
            return say("stream {spec}", spec=self.spec)
        return say("video {spec}", spec=self.spec)


class FolderSource(Source):
    """The images of a folder in name order (once, or looping)."""

    def __init__(self, folder: str | Path, loop: bool = False, clock: Callable[[], float] = time.monotonic):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(say("{folder}: no such folder.", folder=str(folder)), permanent=True)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self.files:
            raise SourceError(say("{folder}: the folder has no images ({suffixes}).", folder=str(folder),
                                  suffixes=", ".join(IMAGE_SUFFIXES)), permanent=True)
        self.loop = loop
        self.clock = clock
        self.index = 0
        self.closed = False

    def read(self) -> Frame | None:
        if self.closed:
            raise SourceError(say("{source} is closed.", source=self.describe()))
        n = len(self.files)
        while self.loop or self.index < n:
            path = self.files[self.index % n]
            data = np.fromfile(str(path), np.uint8)
            image = decode(data)
            if image is None:
                raise SourceError(say("{file}: not a readable image (empty, corrupt or not a picture).", file=str(path)))
            frame = Frame(image, self.index, self.clock())
            self.index += 1
            return frame
        return None

    def close(self) -> None:
        self.closed = True

    def describe(self) -> str:
        return say("folder {folder} ({n} images)", folder=str(self.folder), n=len(self.files))


class ListSource(Source):
    """Frames from memory: a list of images, or a function ``index -> image`` (None ends it).

    For tests and demos it can be told to misbehave, in its clock's time:
    ``fail(seconds)`` (reads raise SourceError, like an unplugged camera; ``None`` = until ``recover()``),
    ``freeze(seconds)`` (reads return the last picture again, byte for byte), and ``fps`` paces reads
    in real time (sleeps) for a demo feed."""

    def __init__(self, frames: Sequence[np.ndarray] | Callable[[int], np.ndarray | None], loop: bool = False,
                 clock: Callable[[], float] = time.monotonic, name: str = "fake camera", fps: float | None = None):
        self.frames = frames
        self.loop = loop
        self.clock = clock
        self.name = name
        self.fps = fps
        self.index = 0          # frames given
        self.position = 0       # position in the list
        self.closed = False
        self.fail_until: float | None = None
        self.freeze_until: float | None = None
        self._last: np.ndarray | None = None
        self._next_at: float | None = None

    def fail(self, seconds: float | None = None) -> None:
        self.fail_until = float("inf") if seconds is None else self.clock() + seconds

    def freeze(self, seconds: float | None = None) -> None:
        self.freeze_until = float("inf") if seconds is None else self.clock() + seconds

    def recover(self) -> None:
        self.fail_until = self.freeze_until = None

    @property
    def failing(self) -> bool:
        return self.fail_until is not None and self.clock() < self.fail_until

    @property
    def frozen(self) -> bool:
        return self.freeze_until is not None and self.clock() < self.freeze_until and self._last is not None

    def _image(self, i: int) -> np.ndarray | None:
        if callable(self.frames):
            return self.frames(i)
        n = len(self.frames)
        if n == 0 or (i >= n and not self.loop):
            return None
        return self.frames[i % n]

    def read(self) -> Frame | None:
        if self.closed:
            raise SourceError(say("{source} is closed.", source=self.describe()))
        if self.fps:
            now = time.monotonic()
            if self._next_at is not None and now < self._next_at:
                time.sleep(self._next_at - now)
            self._next_at = max(now, self._next_at or now) + 1 / self.fps
        if self.failing:
            raise SourceError(say("{source} stopped sending pictures.", source=self.describe()))
        if self.frozen:
            image = self._last
        else:
            image = self._image(self.position)
            if image is None:
                return None
            self.position += 1
            self._last = image
        frame = Frame(image.copy(), self.index, self.clock())
        self.index += 1
        return frame

    def close(self) -> None:
        self.closed = True

    def reopen(self) -> "ListSource":
        """This source again after ``close`` (where it was, faults still planned): a factory for
        ``WatchedSource(fake.reopen)``. Raises SourceError while it is told to fail, like a camera
        that is still unplugged."""
        if self.failing:
            raise SourceError(say("{source} is not available: is it plugged in?", source=self.describe()))
        self.closed = False
        return self

    def describe(self) -> str:
        return self.name


class Paced(Source):
    """Another source played at most ``fps`` frames a second (a recorded video or a folder of images
    played as a camera would send them, rather than as fast as they can be read)."""

    def __init__(self, source: Source, fps: float, sleep: Callable[[float], None] = time.sleep):
        if not fps > 0:
            raise ValueError(f"a paced source needs frames per second above 0 (got {fps!r})")
        self.source, self.fps, self.sleep = source, float(fps), sleep
        self.clock = source.clock
        self._next_at: float | None = None

    def read(self) -> Frame | None:
        now = self.clock()
        if self._next_at is not None and now < self._next_at:
            self.sleep(self._next_at - now)
            now = self._next_at
        self._next_at = max(now, self._next_at or now) + 1 / self.fps
        return self.source.read()

    def close(self) -> None:
        self.source.close()

    def describe(self) -> str:
        return say("{source} at {fps} fps", source=self.source.describe(), fps=Decimal(format(self.fps, "g")))


FakeSource = ListSource


def is_camera_index(text: str) -> bool:
    """``text`` names a camera by its index: ASCII digits only ('²' passes ``str.isdigit`` but not ``int``)."""
    return text.isascii() and text.isdigit()


def open_source(spec: str, loop: bool = False, clock: Callable[[], float] = time.monotonic) -> Source:
    """A source for ``spec``: a webcam index ("0"), a video file, a folder of images (name order), or an
    rtsp:// / http(s):// stream URL. ``loop`` replays a file or folder from the start at its end.
    Raises ``SourceError`` with a sentence when it cannot be opened."""
    text = str(spec).strip()
    if not text:
        raise SourceError("No camera or video given: name a camera index (0), a video file, a folder of "
                          "images or a stream URL.", permanent=True)
    if is_camera_index(text) or text.lower().startswith(STREAM_PREFIXES):
        return CaptureSource(text, clock=clock)
    path = Path(text).expanduser()
    if path.is_dir():
        return FolderSource(path, loop=loop, clock=clock)
    if not path.exists():
        raise SourceError(f"{text}: no such file or folder (give a camera index such as 0, a video file, "
                          "a folder of images or a stream URL).", permanent=True)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise SourceError(f"{text}: a single image, not a video; put images in a folder to play them as "
                          "frames.", permanent=True)
    return CaptureSource(str(path), clock=clock, loop=loop)


def _fingerprint(image: np.ndarray) -> int:
    return zlib.crc32(np.ascontiguousarray(image).data) ^ (hash(image.shape) & 0xFFFFFFFF)


def said_of(error: Exception) -> str:
    """An error's sentence as it was said (with its message, when made with ``referee.say``: each page
    says it in its own language), else its text, else its type's name."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if isinstance(first, str) and first else (str(error) or type(error).__name__)


class WatchedSource:
    """Runs a source made by ``factory`` for a live table without ever raising on a camera fault.

    ``status``: "off" (not started, closed, or the video ended), "ok" (new pictures arrive), "lost"
    (reads fail or raise: unplugged), "frozen" (no new picture, or the same picture byte for byte, for
    ``frozen_after`` s), "reconnecting" (trying to open it again, with backoff ``BACKOFF``). ``message``
    says it in a sentence. ``on_status(status_dict)`` is called on every change of status or message.

    Drive it yourself with ``poll()`` (one step; returns the new frame or None), or ``start()`` a
    background thread and take frames with ``read(timeout)`` / ``latest()``. Frames it gives are
    numbered on across reconnects (``Frame.index``). ``clock`` and ``sleep`` are injectable."""

    def __init__(self, factory: Callable[[], Source], source: str | None = None, frozen_after: float = 1.0,
                 lost_after: float = 0.5, reopen_after: float = 3.0,
                 on_status: Callable[[dict], None] | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, backoff: Sequence[float] = BACKOFF):
        self.factory = factory
        self.source_name = source
        self.frozen_after = frozen_after
        self.lost_after = lost_after          # reads failing this long (or at once if the open fails): lost
        self.reopen_after = reopen_after      # frozen this long: close and reopen it
        self.on_status = on_status
        self.clock = clock
        self.sleep = sleep
        self.backoff = tuple(backoff) or (1.0,)
        self.status = "off"
        self.message = say("The camera is not started.")
        self.frames = 0                       # frames given so far (the next Frame.index)
        self._src: Source | None = None
        self._reading = False
        self._doomed = False
        self._given = -1
        self._ended = False
        self._stopped = False
        self._attempts = 0                    # failed opens in a row
        self._next_open = 0.0
        self._fail_since: float | None = None
        self._last_new: float | None = None   # clock time of the last new picture (or of the open)
        self._frozen_since: float | None = None
        self._last_print: int | None = None
        self._times: deque[float] = deque()
        self._latest: Frame | None = None
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._watchdog: threading.Thread | None = None

    @classmethod
    def of(cls, spec: str, loop: bool = False, **kw) -> "WatchedSource":
        """A watched ``open_source(spec, loop)``; its status names ``spec``."""
        return cls(lambda: open_source(spec, loop=loop), source=str(spec), **kw)

    # -- what the caller sees -------------------------------------------------------------------

    @property
    def fps(self) -> float:
        with self._lock:
            now = self.clock()
            while self._times and self._times[0] <= now - 1.0:
                self._times.popleft()
            return float(len(self._times))

    def status_dict(self) -> dict:
        with self._lock:
            return {"status": self.status, "source": self.describe(), "fps": round(self.fps, 1),
                    "frame": max(0, self.frames - 1), "message": self.message}

    def describe(self) -> str:
        if self.source_name is not None:
            return self.source_name
        return self._src.describe() if self._src is not None else say("camera")

    def latest(self) -> Frame | None:
        with self._lock:
            return self._latest

    # -- one step -------------------------------------------------------------------------------

    def _set(self, status: str, message: str) -> None:
        with self._lock:
            if (status, message) == (self.status, self.message):
                return
            self.status, self.message = status, message
            snapshot = self.status_dict()
            self._cond.notify_all()
        if self.on_status is not None:
            try:
                self.on_status(snapshot)
            except Exception:            # a listener's fault is not the camera's
                pass

    def _drop(self) -> None:
        src, self._src = self._src, None
        if src is not None:
            try:
                src.close()
            except Exception:
                pass

    def _delay(self) -> float:
        return self.backoff[min(max(self._attempts - 1, 0), len(self.backoff) - 1)]

    def _lose(self, why: str, status: str = "lost") -> None:
        """The source failed: close it (or have the reading thread close it when its read returns) and
        plan the next attempt."""
        with self._lock:
            if self._reading:
                self._doomed = True
            else:
                self._drop()
        self._attempts = max(self._attempts, 1)
        self._next_open = self.clock() + self._delay()
        name = self.describe()
        self._set(status, say("{why} Reconnecting to {source} in {seconds} s...", why=why, source=name,
                              seconds=Decimal(format(self._delay(), "g"))))

    def _open(self) -> bool:
        now = self.clock()
        if now < self._next_open:
            return False
        if self._attempts:
            self._set("reconnecting", say("Reconnecting to {source} (try {n})...", source=self.describe(),
                                          n=self._attempts + 1))
        try:
            src = self.factory()
        except Exception as e:  # noqa: BLE001 - any fault of the camera is reported, never raised
            if isinstance(e, SourceError) and e.permanent:
                self._ended = True
                self._set("off", said_of(e))
                return False
            self._attempts += 1
            self._next_open = self.clock() + self._delay()
            self._set("reconnecting" if self.status in ("reconnecting", "lost", "frozen") else "lost",
                      say("{why} Trying again in {seconds} s...", why=said_of(e),
                          seconds=Decimal(format(self._delay(), "g"))))
            return False
        with self._lock:
            self._src = src
            self._fail_since = None
            self._frozen_since = None
            self._last_print = None
            self._last_new = self.clock()
        return True

    def poll(self) -> Frame | None:
        """One step: open the source if due, read one frame, update the status. Never raises on a camera
        fault. Returns the new frame, or None (no source, a failed read, a repeated picture, the end)."""
        if self._stopped or self._ended:
            return None
        if self._src is None and not self._open():
            return None
        with self._lock:
            src, self._reading, self._doomed = self._src, True, False
        try:
            frame = src.read()
            error = None
        except Exception as e:  # noqa: BLE001
            frame, error = None, (str(e) or type(e).__name__)
        finally:
            with self._lock:
                self._reading = False
                doomed = self._doomed
        if doomed:                            # the watchdog gave up on it while the read hung
            self._drop()
            return None
        now = self.clock()
        if error is not None:
            with self._lock:
                if self._fail_since is None:
                    self._fail_since = now
            self.check()
            return None
        if frame is None:                     # the end of a file or folder
            self._drop()
            self._ended = True
            self._set("off", say("{source} has ended: no more pictures.", source=self.describe()))
            return None
        fp = _fingerprint(frame.image)
        with self._lock:
            self._fail_since = None
            if fp == self._last_print:
                repeated = True
            else:
                repeated = False
                self._last_print = fp
                self._last_new = now
                self._frozen_since = None
                out = Frame(frame.image, self.frames, frame.t)
                self.frames += 1
                self._times.append(now)
                self._latest = out
                self._cond.notify_all()
        if not repeated:
            self._attempts = 0
            self._set("ok", say("{source}: pictures arriving.", source=self.describe()))
            return out
        self.check()
        return None

    def check(self) -> str:
        """Judge the time since the last new picture and the last good read (the watchdog calls this
        while a read blocks). Returns the status."""
        now = self.clock()
        with self._lock:
            if self._stopped or self._ended or self._src is None:
                return self.status
            fail_since, last_new = self._fail_since, self._last_new
        if fail_since is not None and now - fail_since >= self.lost_after:
            self._lose(say("{source} stopped sending pictures (unplugged?).", source=self.describe()))
        elif last_new is not None and now - last_new >= self.frozen_after:
            with self._lock:
                if self._frozen_since is None:
                    self._frozen_since = now
                frozen_for = now - self._frozen_since
            if frozen_for >= self.reopen_after:
                self._lose(say("The picture from {source} has been frozen for {seconds} s.", source=self.describe(),
                               seconds=format(now - last_new, ".0f")), status="frozen")
            else:
                if self._reading:
                    self._set("frozen", say("{source} has sent no picture for {seconds} s: is the camera frozen?",
                                            source=self.describe(), seconds=Decimal(format(self.frozen_after, "g"))))
                else:
                    self._set("frozen", say("The picture from {source} has not changed for {seconds} s: is the camera "
                                            "frozen?", source=self.describe(),
                                            seconds=Decimal(format(self.frozen_after, "g"))))
        return self.status

    # -- a background thread --------------------------------------------------------------------

    def start(self) -> "WatchedSource":
        """Read in a background thread (and watch it from a second one, so a read that hangs is noticed)."""
        if self._thread is not None:
            return self
        self._stopped = False

        def run():
            while not self._stopped and not self._ended:
                frame = self.poll()
                if frame is None and not self._stopped:
                    self.sleep(0.02 if self._src is not None else 0.05)

        def watch():
            while not self._stopped and not self._ended:
                self.check()
                self.sleep(0.1)

        self._thread = threading.Thread(target=run, name="warref-camera", daemon=True)
        self._watchdog = threading.Thread(target=watch, name="warref-camera-watch", daemon=True)
        self._thread.start()
        self._watchdog.start()
        return self

    def read(self, timeout: float = 1.0) -> Frame | None:
        """The next frame newer than the last one this returned, waiting up to ``timeout`` s (real time);
        None if none came (``status_dict()`` says why). Starts the thread if needed."""
        if self._thread is None:
            self.start()
        with self._cond:
            seen = self._given
            self._cond.wait_for(lambda: (self._latest is not None and self._latest.index > seen)
                                or self._stopped or self._ended, timeout)
            frame = self._latest
            if frame is None or frame.index <= seen:
                return None
            self._given = frame.index
            return frame

    @property
    def ended(self) -> bool:
        return self._ended

    def close(self) -> None:
        self._stopped = True
        with self._cond:
            self._cond.notify_all()
        for t in (self._thread, self._watchdog):
            if t is not None and t is not threading.current_thread():
                t.join(timeout=2.0)
        self._thread = self._watchdog = None
        self._drop()
        self._set("off", say("{source} is closed.", source=self.describe()))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
