"""How much faster a list of photos is read on every core (`warref detect --jobs`, `warref eval`).

    python bench/bench_photos.py [--photos 16] [--jobs N] [--repeats 2]

Renders ``--photos`` square close-up photos (vision.synth.flat: two or three standard cards
filling a 640x640 white sheet, the hardest common case: every pass, the close looks and the
corner-index search run), writes them to a temporary folder, and reads the list as
`warref detect` does (``vision.photos.read_photos``) one by one and on ``--jobs`` processes
(default: one per core), alternately, ``--repeats`` times each. Prints the median seconds of
each, the ratio, and whether both gave the same readings. The pool's start (each process loads
the models) is counted.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.photos import jobs_for, read_photos
from vision.reader import PHOTO_PASSES, ZOOM, TableReader
from vision.synth.flat import flat_table

CODES = [r + s for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A") for s in "CDHS"]


def photos(folder: Path, count: int) -> list[Path]:
    rng = np.random.default_rng(5)
    out = []
    for i in range(count):
        n = int(rng.integers(2, 4))
        cards = [(str(code), (float(rng.uniform(150, 490)), float(rng.uniform(150, 490))), float(rng.uniform(-40, 40)))
                 for code in rng.choice(CODES, n, replace=False)]
        image, _ = flat_table("standard", cards, size=(640, 640), card_h=300, seed=i, table="paper")
        path = folder / f"photo{i:03d}.jpg"
        cv2.imwrite(str(path), image)
        out.append(path)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    reader = TableReader("standard", passes=PHOTO_PASSES, unstretch=True, cut=True, zoom=ZOOM, lean=True,
                         indices=True, words=True)           # as `warref detect` reads a photo
    jobs = jobs_for(args.photos, args.jobs)
    with tempfile.TemporaryDirectory() as tmp:
        paths = photos(Path(tmp), args.photos)
        times: dict[int, list[float]] = {1: [], jobs: []}
        readings: dict[int, list] = {}
        for _ in range(args.repeats):
            for n in (1, jobs):
                t = time.perf_counter()
                got = [[r.as_json() for r in reads] for _, _, reads in read_photos(reader, paths, 0.05, n)]
                times[n].append(time.perf_counter() - t)
                readings[n] = got
    one, many = statistics.median(times[1]), statistics.median(times[jobs])
    print(f"{args.photos} square close-up photos, {os.cpu_count()} cores")
    print(f"  one by one:        {one:7.1f} s  ({one / args.photos:.2f} s a photo)")
    print(f"  {jobs} processes:       {many:7.1f} s  ({many / args.photos:.2f} s a photo)")
    print(f"  ratio:             {one / many:7.2f} times as fast; same readings: {readings[1] == readings[jobs]}")


if __name__ == "__main__":
    main()
