"""Synthetic scene throughput.

    python bench/bench_synth.py [--deck woolly] [--scenes 60] [--repeats 3] [--jobs 2]

Prints, as medians over the repeats (these machines are shared and noisy):
- render time per scene in one process, art already loaded (ms, median and p90 over scenes);
- whole `warref synth` throughput with --jobs workers, art loading and file writing included
  (scenes/s), and the same excluding the workers' one-off art loading.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.synth import dataset  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deck", default="woolly")
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    deck, codes = dataset.load(args.deck)
    load_s = time.perf_counter() - start
    per_scene = []
    for i in range(args.scenes):
        t = time.perf_counter()
        dataset.scene(args.deck, deck, codes, seed=1, index=i)
        per_scene.append(time.perf_counter() - t)
    per_scene.sort()
    print(f"{args.deck}: art load {load_s:.1f} s; render in one process: median "
          f"{1000 * statistics.median(per_scene):.0f} ms/scene, p90 {1000 * per_scene[int(0.9 * len(per_scene))]:.0f} ms")
    rates, steady = [], []
    for r in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            dataset.generate(args.deck, args.scenes * args.jobs, Path(tmp), seed=r + 1, jobs=args.jobs)
            seconds = time.perf_counter() - t
        rates.append(args.scenes * args.jobs / seconds)
        steady.append(args.scenes * args.jobs / max(seconds - load_s, 1e-6))
    print(f"warref synth, {args.jobs} jobs, {args.scenes * args.jobs} scenes per run, median of {args.repeats}: "
          f"{statistics.median(rates):.1f} scenes/s with art loading, "
          f"{statistics.median(steady):.1f} scenes/s without it")


if __name__ == "__main__":
    main()
