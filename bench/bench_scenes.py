"""How well does a detector find the cards of one kind of synthetic scene?

    python bench/bench_scenes.py [--kind usual|held-up|close-ups|clutter|rows] [--scenes 120]
                                 [--seed 5] [--detector models/detector.onnx] [--json OUT]

Renders ``--scenes`` standard-deck scenes of a kind (``warref synth``'s options, the deck's
more art included, seeded: the same scenes every run) in memory and runs the detector alone on each
frame, as the live pass does. Prints:

- found at 0.5 / 0.7: the share of cards (face up and backs) at least 60% in sight that a box
  scoring 0.5 (0.7) or more meets at IoU >= 0.5 (axis-aligned boxes);
- stray: boxes scoring 0.5 or more that meet no card, not even a mostly hidden one, at IoU 0.3.

A kind the detector has not learnt shows as a lower found share or more stray boxes than the
usual tables; seed 5 is used by no training set.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.detector import Detector  # noqa: E402
from vision.synth.dataset import load, scene  # noqa: E402

KINDS = {"usual": {}, "held-up": {"held_up": True}, "close-ups": {"close_ups": True},
         "clutter": {"clutter": True}, "rows": {"rows": True}}


def iou(a, b) -> float:
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def measure(kind: str, scenes: int, seed: int, detector: Path) -> dict:
    deck, codes = load("standard", more_art=True)
    det = Detector(detector)
    cards = found5 = found7 = stray = 0
    for index in tqdm(range(scenes), desc=kind, file=sys.stderr):
        sc = scene("standard", deck, codes, seed, index, **KINDS[kind])
        image = cv2.imdecode(np.frombuffer(sc.jpeg, np.uint8), cv2.IMREAD_COLOR)
        boxes = []
        for d in det(image, threshold=0.5):
            (x0, y0), (x1, y1) = d.corners.min(0), d.corners.max(0)
            boxes.append((float(d.score), (x0, y0, x1, y1)))
        truth = [(label["visible"], label["box"]) for label in sc.labels]
        for visible, box in truth:
            if visible < 0.6:
                continue
            cards += 1
            best = [score for score, b in boxes if iou(b, box) >= 0.5]
            found5 += bool(best)
            found7 += any(s >= 0.7 for s in best)
        stray += sum(1 for _, b in boxes if all(iou(b, t) < 0.3 for _, t in truth))
    return {"kind": kind, "scenes": scenes, "seed": seed, "detector": str(detector), "cards": cards,
            "found_0.5": round(found5 / max(cards, 1), 3), "found_0.7": round(found7 / max(cards, 1), 3),
            "stray": stray}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", choices=sorted(KINDS), default="held-up")
    p.add_argument("--scenes", type=int, default=120)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--detector", type=Path, default=Path("models/detector.onnx"))
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    result = measure(args.kind, args.scenes, args.seed, args.detector)
    print(f"{result['kind']}: {result['cards']} cards in {result['scenes']} scenes: found {result['found_0.5']:.3f} "
          f"at 0.5, {result['found_0.7']:.3f} at 0.7; {result['stray']} stray boxes at 0.5 or more")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
