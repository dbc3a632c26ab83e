"""Many photos read at once, one process per core (`warref detect`, `warref eval`).

A photo read with every pass, looked at again close up and searched for corner indices takes
seconds on one core (onnxruntime runs each reader on one thread: on a live table that is
fastest, models/README.md). Photos are read independently of each other (a photo reader keeps
nothing from one photo to the next; ``reuse`` is for a live table's frames), so each worker
process makes its own reader from the caller's ``settings`` and reads whole photos; the
results come back in the photos' order and are the same as reading them one after another.
`warref detect` and `warref eval` use one process per core unless told (`--jobs`); called from
Python, ``jobs`` is 1 unless asked for.

A photo of any size is read in bounded memory and time (``load_bounded``): one larger than
``MAX_SIDE`` (``MAX_SQUARE`` when square) is shrunk to it before it is read, a big JPEG decoded
already reduced, and the readings are given back in the photo's own pixels. A file whose header
claims more than ``MAX_PIXELS`` is refused unread. A photo that cannot be read costs only itself:
its error, its worker process dying (out of memory, a crash) or running past ``timeout`` is
reported as that photo's result, and the other photos are read on (pebble's process pool
replaces a worker that died, where the standard library's pool breaks, losing every photo).
"""
from __future__ import annotations

import math
import multiprocessing
import os
import pickle
import signal
import warnings
from collections.abc import Iterator
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from pebble import ProcessExpired, ProcessPool
from PIL import Image, JpegImagePlugin

from referee.say import Decimal, say, sentence_of

from .decode import decode
from .errors import BadImage, VisionError
from .reader import Read, TableReader

# The longest side a photo is read at; a larger one is shrunk to it (INTER_AREA) and its readings
# scaled back. Measured with `warref detect`'s reader (PHOTO) on three 6000x4000 photos (an 8-card
# table and two real edje/ photos, upscaled), each in a fresh process (bench/bench_photos.py --big
# 3, one core, peak RSS with 0.15 GB of models): read whole, 7.4-16.3 s CPU and 1.28-1.39 GB
# (others' tables: up to 242 s and 23.8 GB); at 1600 px 3.3-4.4 s and 0.87-1.18 GB, over 1 GB for
# both real photos; at 1280 px 2.3-3.0 s and 0.77-0.95 GB; at 960 px 2.3-2.5 s and 0.74-0.89 GB
# (most of that is the reader's own). The real test sets are at most 960 px: read as before.
MAX_SIDE = 1280
# A square photo is read four more times, stretched to other shapes up to 16/9 longer
# (``unstretch``): the 8-card table square at 1600 px took 9.6 s and 1.32 GB, at 1280 px 8.3 s and
# 1.08 GB, at 1152 px 6.4 s and 0.91 GB (real phone/ photos upscaled to 4000x4000: 4.1 s, 0.68-0.75
# GB; at 960 px, as the square test sets are, 6.7 s and 0.75 GB).
MAX_SQUARE = 1152
# A file whose header claims more pixels than this is refused without decoding it (a
# decompression bomb); the largest phone photos (200 MP sensors, 16320x12240) are below it.
MAX_PIXELS = 200_000_000
_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}

_reader: TableReader | None = None      # a worker process's own reader
_unmade: str | None = None              # or why it could not be made there


def jobs_for(count: int, jobs: int | None = None) -> int:
    """How many processes read ``count`` photos: ``jobs`` (None: one per core), never more than photos."""
    wanted = jobs if jobs is not None else (os.cpu_count() or 1)
    return max(1, min(int(wanted), count))


def _limit(width: int, height: int) -> int:
    """The longest side an image of this shape is read at."""
    return MAX_SQUARE if width == height else MAX_SIDE


def bounded_size(width: int, height: int) -> tuple[int, int]:
    """(width, height) an image of this size is read at: as it is, or shrunk keeping its shape so
    that its longer side is ``MAX_SIDE`` (``MAX_SQUARE`` for a square, also one that shrinking
    would make square)."""
    for limit in (_limit(width, height), MAX_SQUARE):
        if max(width, height) <= limit:
            return width, height
        scale = limit / max(width, height)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        if size[0] != size[1] or width == height:
            return size
    return size


def _header_size(path: Path) -> tuple[tuple[int, int] | None, bool]:
    """((width, height) the file's header claims, as stored, or None where Pillow does not know
    the file), whether it is a JPEG; nothing is decoded. Raises BadImage for a header past
    ``MAX_PIXELS`` or one Pillow itself takes for a decompression bomb."""
    with open(path, "rb") as f:
        jpeg = f.read(3) == b"\xff\xd8\xff"
    try:
        if jpeg:     # the class itself: Image.open would refuse a 179-200 MP phone photo as a bomb
            with JpegImagePlugin.JpegImageFile(str(path)) as im:
                size = im.size
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                with Image.open(path) as im:
                    size = im.size
    except Image.DecompressionBombError as err:
        raise BadImage(say("{file}: refused unread, its header claims too many pixels (a decompression bomb?): {why}",
                           file=str(path), why=str(err))) from None
    except Exception:  # noqa: BLE001  (not a file Pillow knows: OpenCV may still read it; or corrupt)
        return None, jpeg
    if size[0] * size[1] > MAX_PIXELS:
        raise BadImage(say("{file}: refused unread, its header claims {width}x{height} pixels ({megapixels} "
                           "megapixels, more than the {most} a photo may have): a decompression bomb, or a picture "
                           "to shrink before reading it", file=str(path), width=size[0], height=size[1],
                           megapixels=round(size[0] * size[1] / 1e6), most=round(MAX_PIXELS / 1e6)))
    return size, jpeg


def load_bounded(path: str | Path) -> tuple[np.ndarray, tuple[int, int]]:
    """(the image as it is read: BGR, at most ``bounded_size``; the photo's own (width, height),
    as ``reader.load_image`` decodes it, EXIF orientation applied). A JPEG larger than that is
    decoded already reduced by 2, 4 or 8 (libjpeg's own scaling: the full image is never held),
    then shrunk with INTER_AREA; other files are decoded whole, then shrunk. Raises BadImage for
    a file that is missing, not an image OpenCV reads, or whose header claims more than
    ``MAX_PIXELS``."""
    path = Path(path)
    if not path.is_file():
        raise BadImage(say("{file}: no such image file", file=str(path)))
    header, jpeg = _header_size(path)
    reduce = 1
    if jpeg and header is not None:
        long, limit = max(header), _limit(*header)
        reduce = max([r for r in _REDUCED if math.ceil(long / r) >= limit], default=1)
    data = np.fromfile(str(path), np.uint8)
    image = None
    try:
        if data.size and reduce > 1:
            image = cv2.imdecode(data, _REDUCED[reduce])
        if data.size and image is None:
            reduce, image = 1, decode(data)
    except cv2.error as err:
        raise BadImage(say("{file}: not an image this can read ({why})", file=str(path),
                           why=str(err).strip().splitlines()[-1])) from None
    if image is None:
        raise BadImage(say("{file}: not a readable image (empty, corrupt or not a picture)", file=str(path)))
    del data
    h, w = image.shape[:2]
    size = (w, h)
    if reduce > 1:                # the photo's size: the header's, turned as the decoder turned it
        hw, hh = header
        turns = {(math.ceil(hw / reduce), math.ceil(hh / reduce)): (hw, hh),
                 (math.ceil(hh / reduce), math.ceil(hw / reduce)): (hh, hw)}
        size = turns.get((w, h), (w * reduce, h * reduce))
    bounded = bounded_size(w, h) if reduce == 1 else bounded_size(*size)
    if bounded != (w, h):
        image = cv2.resize(image, bounded, interpolation=cv2.INTER_AREA)
    return image, size


def _in_photo(r: Read, sx: float, sy: float, width: int, height: int) -> Read:
    """A reading of the image as it was read, in the photo's pixels (scaled by sx, sy). The angle
    stays: the scaling is the same both ways but for rounding."""
    x0, y0, x1, y1 = r.box
    box = [max(0, math.floor(x0 * sx)), max(0, math.floor(y0 * sy)),
           min(width, math.ceil(x1 * sx)), min(height, math.ceil(y1 * sy))]
    return replace(r, box=box, corners=[[float(x) * sx, float(y) * sy] for x, y in r.corners])


def read_one(reader: TableReader, path: str | Path, threshold: float) -> tuple[str, tuple[int, int] | None,
                                                                              list[Read] | str]:
    """(path, (width, height), readings at ``threshold`` or more, in the photo's pixels), or
    (path, None, why) for a file that is not an image this can read, or whose reading failed
    (the error's class and message)."""
    try:
        image, (width, height) = load_bounded(path)
    except VisionError as err:               # its sentence as said (with say(): its message kept)
        return str(path), None, sentence_of(err)
    except Exception as err:  # noqa: BLE001  (the photo's own failure)
        return str(path), None, say("{file}: could not be loaded: {error}: {why}", file=str(path),
                                    error=type(err).__name__, why=str(err))
    try:
        reads = reader.read(image, threshold)
    except Exception as err:  # noqa: BLE001  (the photo's own failure)
        return str(path), None, say("{file}: reading it failed: {error}: {why}", file=str(path),
                                    error=type(err).__name__, why=str(err))
    h, w = image.shape[:2]
    if (w, h) != (width, height):
        reads = [_in_photo(r, width / w, height / h, width, height) for r in reads]
    return str(path), (width, height), reads


def _start(kind: type, settings: dict) -> None:
    global _reader, _unmade
    try:
        _reader = kind(**settings)
    except Exception as err:  # noqa: BLE001  (told with each photo, not a worker restarted forever)
        _unmade = f"{type(err).__name__}: {err}"


def _read(path: str, threshold: float) -> tuple[str, tuple[int, int] | None, list[Read] | str]:
    if _reader is None:
        return path, None, say("{file}: not read: the reader could not be made in a worker process ({why})", file=path,
                               why=_unmade)
    return read_one(_reader, path, threshold)


def _remade(reader: TableReader) -> tuple[type, dict] | None:
    """(the reader's class, its settings): how a worker process makes the same reader again; None
    for a reader that cannot be made again (given its own detector, or of a class that does not
    pickle)."""
    try:
        settings = reader.settings()
        pickle.dumps((type(reader), settings))
    except (ValueError, pickle.PicklingError, AttributeError, TypeError):
        return None
    return type(reader), settings


def _failure(path: str, err: BaseException, timeout: float | None) -> str:
    """Why a photo read in a worker process came back without its readings."""
    if isinstance(err, ProcessExpired):
        code = err.exitcode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = say("signal {number}", number=-code)
            how = (say("killed by {signal}, as when memory runs out", signal=name) if -code == signal.SIGKILL
                   else say("killed by {signal}", signal=name))
        else:
            how = say("exit code {code}", code=code)
        return say("{file}: not read: the process reading it died ({how})", file=path, how=how)
    if isinstance(err, FutureTimeout):
        return say("{file}: not read: stopped after the time limit of {seconds} s a photo", file=path,
                   seconds=Decimal(f"{timeout:g}"))
    return say("{file}: not read: {error}: {why}", file=path, error=type(err).__name__, why=str(err))


def read_photos(reader: TableReader, paths: list, threshold: float, jobs: int | None = 1,
                timeout: float | None = None) -> Iterator[tuple[str, tuple[int, int] | None, list[Read] | str]]:
    """``read_one`` for every path, in order, on ``jobs_for(len(paths), jobs)`` processes (None:
    one per core), each making a reader of ``reader``'s class from its ``settings()``. A photo
    whose worker dies (killed for memory, crashed) or reads past ``timeout`` seconds (None: no
    limit) comes back as (path, None, why) and its worker is replaced; the others are read on.
    With one process and no ``timeout``, or a reader that cannot be made again from its
    settings, photos are read here, with ``reader`` itself (``timeout`` is then not enforced).
    As with any spawned process pool, a script that asks for more than one process must start
    from ``if __name__ == "__main__":`` (each process imports the script again); the `warref`
    command does."""
    paths = [str(p) for p in paths]
    count = jobs_for(len(paths), jobs)
    remade = _remade(reader) if paths and (count > 1 or timeout is not None) else None
    if remade is None:
        for path in paths:
            yield read_one(reader, path, threshold)
        return
    # spawned, not forked (as vision.synth.dataset's pool): a fork would copy this process's
    # onnxruntime sessions and threads
    pool = ProcessPool(count, initializer=_start, initargs=remade, context=multiprocessing.get_context("spawn"))
    done = False
    try:
        futures = [pool.schedule(_read, (path, threshold), timeout=timeout) for path in paths]
        for path, future in zip(paths, futures):
            try:
                yield future.result()
            except Exception as err:  # noqa: BLE001  (the photo's own failure)
                yield path, None, _failure(path, err, timeout)
        done = True
    finally:
        if done:
            pool.close()
        else:                                # left early (an error, or the caller stopped): no waiting
            pool.stop()
        pool.join()
