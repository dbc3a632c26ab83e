"""Would a calibration of the final confidence, fitted on real photos, read more cards surely? (issue 58)

    python -m vision.lab.calibrate REPORT_DIR [--announce 0.8]

A monotone map of the reading's confidence (isotonic regression: pool-adjacent-violators, the
standard fit; Zadrozny and Elkan, 2002) is fitted on the outcomes of every real set but one and
applied to the one left out, each set in turn: a set is never scored by a map fitted on it, nor on
a copy of its photos (``phone-webcam`` is left out of the map for ``phone`` and the other way). For each
set it prints the right and wrong readings at the stated threshold and at the announce level, as
read and as calibrated. Whether a map is kept is `warref judge`'s rule, on the held-out figures.
Nothing here is read at run time.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from . import realcards
from .judge import scored


def isotonic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The non-decreasing step function of ``x`` closest to ``y`` in squared error (pool adjacent
    violators): (knots, values), to be read with ``np.interp``."""
    order = np.argsort(x, kind="stable")
    xs, ys = np.asarray(x, float)[order], np.asarray(y, float)[order]
    values, weights, starts = [], [], []
    for i, v in enumerate(ys):
        values.append(v)
        weights.append(1.0)
        starts.append(i)
        while len(values) > 1 and values[-2] > values[-1]:
            w = weights[-2] + weights[-1]
            values[-2] = (values[-2] * weights[-2] + values[-1] * weights[-1]) / w
            weights[-2] = w
            values.pop()
            weights.pop()
            starts.pop()
    knots, out = [], []
    for k, (v, s) in enumerate(zip(values, starts)):
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(xs) - 1
        knots += [xs[s], xs[end]]
        out += [v, v]
    return np.asarray(knots), np.asarray(out)


def outcomes(report_dir: Path, name: str) -> list[tuple[float, bool]]:
    """(confidence, right) of every reading of one set of a `warref eval` report, scored as `warref
    judge` scores it (``judge.scored``)."""
    found, _ = scored(report_dir, name)
    return [(float(o[0]), bool(o[1])) for o in found]


def at(pairs: list[tuple[float, bool]], threshold: float) -> tuple[int, int]:
    """Right and wrong readings at ``threshold``."""
    said = [right for c, right in pairs if c >= threshold]
    return sum(said), len(said) - sum(said)


def cross_sets(by_set: dict[str, list[tuple[float, bool]]], thresholds: tuple[float, ...],
               base=lambda name: name) -> dict[str, dict]:
    """For each set: its figures as read and under a map fitted on all the other sets, leaving out
    every set made from the same photos (``base``: a webcam-like copy's set, ``realcards.base``)."""
    out = {}
    for name, pairs in by_set.items():
        rest = [p for other, ps in by_set.items() if base(other) != base(name) for p in ps]
        knots, values = isotonic(np.array([c for c, _ in rest]), np.array([r for _, r in rest], float))
        mapped = [(float(np.interp(c, knots, values)), r) for c, r in pairs]
        out[name] = {t: {"as read": at(pairs, t), "calibrated": at(mapped, t)} for t in thresholds}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path)
    ap.add_argument("--announce", type=float, default=0.8)
    args = ap.parse_args()
    report = json.loads((args.report / "report.json").read_text())
    names = [n for n in report["real_sets"] if "skipped" not in report.get(n, {"skipped": 1})]
    by_set = {n: outcomes(args.report, n) for n in names}
    thresholds = (report["reader"]["threshold"], args.announce)
    print("| set | threshold | as read: right / wrong | calibrated on the other sets: right / wrong |")
    print("|---|---|---|---|")
    for name, figures in cross_sets(by_set, thresholds, realcards.base).items():
        for t, f in figures.items():
            print(f"| `{name}` | {t:g} | {f['as read'][0]} / {f['as read'][1]} | {f['calibrated'][0]} / {f['calibrated'][1]} |")


if __name__ == "__main__":
    main()
