"""How much faster a list of photos is read on every core (`warref detect --jobs`, `warref eval`).

    python bench/bench_photos.py [--photos 16] [--jobs N] [--repeats 2]

Renders ``--photos`` square close-up photos (vision.synth.flat: two or three standard cards
filling a 640x640 white sheet, the hardest common case: every pass, the close looks and the
corner-index search run), writes them to a temporary folder, and reads the list as
`warref detect` does (``vision.photos.read_photos``) one by one and on ``--jobs`` processes
(default: one per core), alternately, ``--repeats`` times each. Prints the median seconds of
each, the ratio, and whether both gave the same readings. The pool's start (each process loads
the models) is counted.

    python bench/bench_photos.py --big 3 [--whole]

Photos of any size (issue 39: a 6000x4000 photo of a card table took 10-242 s and 1.3-23.8 GB):
makes ``--big`` 6000x4000 JPEGs (an 8-card table rendered at 960x640, then real photos from
../shared/realcards/edje, each upscaled), reads each in a fresh process of its own as
`warref detect` does (``vision.photos.read_one``: decoded reduced, shrunk to ``MAX_SIDE``, its
readings scaled back) and prints each photo's CPU seconds and peak memory (the process's peak
RSS, the models' share, loaded before the photo, shown apart), their medians, against the
target: 1 GB and a few seconds of one core a photo. ``--whole``: the photo decoded and read
whole instead, as before ``MAX_SIDE`` (minutes and many GB are possible).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from vision.config import PHOTO
from vision.photos import MAX_SIDE, jobs_for, read_one, read_photos
from vision.reader import TableReader, load_image
from vision.lab.realcards import DEFAULT_ROOT
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


def detect_reader() -> TableReader:
    """A reader as `warref detect` makes it."""
    return TableReader("standard", PHOTO)


BIG = (6000, 4000)
TABLE = ["7D", "KS", "3H", "AC", "QH", "10S", "5C", "JD"]


def big_photos(folder: Path, count: int) -> list[Path]:
    """``count`` 6000x4000 JPEGs: an 8-card table rendered at 960x640, then real photos of cards
    (../shared/realcards/edje, 960x540 ones), each upscaled (INTER_CUBIC)."""
    rng = np.random.default_rng(1)
    cards = [(code, (120 + 240 * (i % 4), 160 + 320 * (i // 4)), float(rng.uniform(-30, 30)))
             for i, code in enumerate(TABLE)]
    sources = [flat_table("standard", cards, size=(960, 640), card_h=200, seed=3, table="wood")[0]]
    real = sorted((DEFAULT_ROOT / "edje" / "images").glob("*.jpg"))
    sources += [load_image(p) for p in real if Image.open(p).size == (960, 540)][:count - 1]
    if len(sources) < count:
        print(f"  (only {len(sources) - 1} real photos of 960x540 in {DEFAULT_ROOT / 'edje' / 'images'})")
    out = []
    for i, image in enumerate(sources[:count]):
        path = folder / f"big{i:02d}.jpg"
        cv2.imwrite(str(path), cv2.resize(image, BIG, interpolation=cv2.INTER_CUBIC), [cv2.IMWRITE_JPEG_QUALITY, 92])
        out.append(path)
    return out


def peak_mb() -> float:
    """This process's peak RSS in MB: Linux's VmHWM (ru_maxrss would count the parent's memory at
    the fork before this program was started), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def read_alone(path: str, whole: bool) -> None:
    """Read one photo in this process; print its CPU seconds and this process's peak RSS (MB),
    and the peak before the photo (the models), as a JSON line."""
    reader = detect_reader()
    before = peak_mb()
    cpu = time.process_time()
    if whole:                                        # as before MAX_SIDE: decoded and read whole
        image = load_image(Path(path))
        size, reads = (image.shape[1], image.shape[0]), reader.read(image, 0.05)
    else:
        _, size, reads = read_one(reader, path, 0.05)
    cpu = time.process_time() - cpu
    peak = peak_mb()
    print(json.dumps({"cpu_s": cpu, "peak_mb": peak, "models_mb": before, "size": size,
                      "cards": sorted(r.card for r in reads if r.confidence >= 0.5)}))


def bench_big(count: int, whole: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = big_photos(Path(tmp), count)
        rows = []
        for path in paths:
            run = subprocess.run([sys.executable, __file__, "--one", str(path)] + (["--whole"] if whole else []),
                                 check=False, capture_output=True, text=True)
            if run.returncode:
                print(f"  {path.name}: failed ({run.returncode}): {run.stderr.strip()[-300:]}")
                continue
            row = json.loads(run.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(f"  {path.name}: {row['cpu_s']:6.1f} s CPU  peak {row['peak_mb'] / 1024:5.2f} GB "
                  f"(models {row['models_mb'] / 1024:.2f} GB)  {len(row['cards'])} cards: {' '.join(row['cards'])}")
    if not rows:
        return
    how = "read whole (as before MAX_SIDE)" if whole else f"read at {MAX_SIDE} px (vision.photos.read_one)"
    cpu, peak = statistics.median(r["cpu_s"] for r in rows), statistics.median(r["peak_mb"] for r in rows)
    most = max(r["peak_mb"] for r in rows)
    print(f"{len(rows)} {BIG[0]}x{BIG[1]} photos, {how}, each in a fresh process:")
    print(f"  median {cpu:.1f} s CPU a photo, median peak {peak / 1024:.2f} GB (most {most / 1024:.2f} GB); "
          f"target: a few seconds and 1 GB: {'met' if most <= 1024 and cpu <= 5 else 'NOT met'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--big", type=int, default=0, help="instead: this many 6000x4000 photos, CPU and memory each")
    ap.add_argument("--whole", action="store_true", help="with --big: read each photo whole (as before)")
    ap.add_argument("--one", help=argparse.SUPPRESS)          # a child process's one photo
    args = ap.parse_args()
    if args.one:
        return read_alone(args.one, args.whole)
    if args.big:
        return bench_big(args.big, args.whole)
    reader = detect_reader()
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
