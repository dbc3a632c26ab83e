"""Many photos read at once, one process per core (`warref detect`, `warref eval`).

A photo read with every pass, looked at again close up and searched for corner indices takes
seconds on one core (onnxruntime runs each reader on one thread: on a live table that is
fastest, models/README.md). Photos are read independently of each other (a photo reader keeps
nothing from one photo to the next; ``reuse`` is for a live table's frames), so each worker
process makes its own ``TableReader`` from the caller's ``settings`` and reads whole photos; the
results come back in the photos' order and are the same as reading them one after another.
The standard library's process pool is enough here: nothing is shared but the file names.
`warref detect` and `warref eval` use one process per core unless told (`--jobs`); called from
Python, ``jobs`` is 1 unless asked for.
"""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .errors import VisionError
from .reader import Read, TableReader, load_image

_reader: TableReader | None = None      # a worker process's own reader


def jobs_for(count: int, jobs: int | None = None) -> int:
    """How many processes read ``count`` photos: ``jobs`` (None: one per core), never more than photos."""
    wanted = jobs if jobs is not None else (os.cpu_count() or 1)
    return max(1, min(int(wanted), count))


def _start(settings: dict) -> None:
    global _reader
    _reader = TableReader(**settings)


def _read(job: tuple[str, float]) -> tuple[str, tuple[int, int] | None, list[Read] | str]:
    return read_one(_reader, *job)


def read_one(reader: TableReader, path: str | Path, threshold: float) -> tuple[str, tuple[int, int] | None,
                                                                              list[Read] | str]:
    """(path, (width, height), readings at ``threshold`` or more), or (path, None, why) for a
    file that is not an image this can read."""
    try:
        image = load_image(Path(path))
    except VisionError as err:
        return str(path), None, str(err)
    return str(path), (image.shape[1], image.shape[0]), reader.read(image, threshold)


def read_photos(reader: TableReader, paths: list, threshold: float,
                jobs: int | None = 1) -> Iterator[tuple[str, tuple[int, int] | None, list[Read] | str]]:
    """``read_one`` for every path, in order, on ``jobs_for(len(paths), jobs)`` processes (None:
    one per core; one, or a reader that cannot be made again from its settings: in this process,
    with ``reader`` itself). As with any spawned process pool, a script that asks for more than
    one must start from ``if __name__ == "__main__":`` (each process imports the script again);
    the `warref` command does."""
    count = jobs_for(len(paths), jobs)
    try:
        settings = reader.settings() if count > 1 else None
    except ValueError:                   # a reader given its own detector: read here, one by one
        settings = None
    if settings is None:
        for path in paths:
            yield read_one(reader, path, threshold)
        return
    # spawned, not forked (as vision.synth.dataset's pool): a fork would copy this process's
    # onnxruntime sessions and threads; a worker that cannot start breaks the pool with its error
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(count, mp_context=context, initializer=_start, initargs=(settings,)) as pool:
        yield from pool.map(_read, [(str(p), threshold) for p in paths])
