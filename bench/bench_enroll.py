"""How well does a taught deck read (`warref enroll`), and how long does teaching take?

    python bench/bench_enroll.py [--scenes 60] [--handheld ../shared/realcards/handheld] [--json OUT]

Two measurements, each against the installed readers on the same pictures (issue 40):

1. **Unseen art**: a deck drawn here that no reader trained on, black faces printed in gold and
   silver (the standard deck's `cardsjs` art with its paper made black, black ink gold and red ink
   silver), enrolled from one image per card (the card alone, 52 cards, no joker), then read on
   ``--scenes`` synthetic table scenes dealt from that art (seed 7, the live reader on each
   frame). Identity precision and recall at the stated threshold over the face-up cards at least
   60% in sight with an index in sight; and what the detector finds of them.
2. **Real webcam frames**: ``handheld/`` enrolled from one frame of each card, its sharpest
   (``--labelled``: each card found where its corner labels are), the other frames read (the live reader) and
   scored per frame on card identities (precision and recall at the stated threshold, as
   ../shared/realcards/README.md describes).

Both enrol into a temporary ``$WARREF_HOME``. Prints the figures and the enrolment times.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import art  # noqa: E402
from vision.art import CARD_H, CARD_W, CardImage, rounded_outline  # noqa: E402
from vision.config import LIVE  # noqa: E402
from vision.enroll import enroll  # noqa: E402
from vision.reader import TableReader  # noqa: E402
from vision.synth.layout import Deck  # noqa: E402
from vision.synth.render import render  # noqa: E402

ONE = dataclasses.replace(LIVE, reuse=False)     # the live reader, each picture on its own
LOWER = (0.4, 0.3)                               # also scored at these thresholds, for information


def dark_deck(out: Path) -> dict[str, np.ndarray]:
    """The gold-and-silver-on-black deck, one PNG per card in ``out``; the art by code (RGB)."""
    out.mkdir(parents=True, exist_ok=True)
    cards = {}
    for face in art.faces("standard"):
        if face.artwork != "cardsjs" or face.code in cards:
            continue
        rgb = face.image[..., :3].astype(np.float32)
        alpha = face.image[..., 3:4].astype(np.float32) / 255
        white = rgb.min(2, keepdims=True) / 255
        red = np.clip((rgb[..., :1] - (rgb[..., 1:2] + rgb[..., 2:3]) / 2) / 120, 0, 1)
        ink = red * np.array([205, 205, 215.0]) + (1 - red) * np.array([225, 185, 70.0])
        dark = white * np.array([18, 18, 22.0]) + (1 - white) * ink
        dark = (dark * alpha + 255 * (1 - alpha)).astype(np.uint8)
        cards[face.code] = dark
        cv2.imwrite(str(out / f"{face.code}.png"), cv2.cvtColor(dark, cv2.COLOR_RGB2BGR))
    return cards


def score(pairs) -> dict:
    """Identity precision and recall from (truth set, predicted set) per picture."""
    right = sum(len(t & p) for t, p in pairs)
    said = sum(len(p) for _, p in pairs)
    there = sum(len(t) for t, _ in pairs)
    return {"precision": round(right / max(said, 1), 4), "recall": round(right / max(there, 1), 4),
            "right": right, "said": said, "labelled": there}


def unseen_art(scenes: int, work: Path) -> dict:
    cards = dark_deck(work / "dark-cards")
    start = time.perf_counter()
    taught = enroll("dark", "standard", cards=work / "dark-cards")
    seconds = time.perf_counter() - start
    outline = (rounded_outline() * 255).astype(np.uint8)[..., None]
    faces = {code: [CardImage("standard", code, "dark", np.dstack([cv2.resize(rgb, (CARD_W, CARD_H)), outline]))]
             for code, rgb in cards.items()}
    deck = Deck(faces, art.backs("standard")[:3])
    readers = {"installed": TableReader("standard", ONE), "taught": TableReader("dark", ONE)}
    pairs, found = defaultdict(list), [0, 0]
    for index in tqdm(range(scenes), desc="dark scenes", file=sys.stderr):
        rng = np.random.default_rng([7, index])
        featured = [deck.codes[int(k)] for k in rng.integers(0, len(deck.codes), 2)]
        scene = render(rng, "standard", deck, featured)
        image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
        truth = {label["card"] for label in scene.labels
                 if label["face_up"] and label["visible"] >= 0.6 and label.get("index_visible")}
        for name, reader in readers.items():
            reads = reader.read(image, min(LOWER))
            for t in (reader.reader.threshold, *LOWER):
                said = {r.card for r in reads if r.card not in ("BACK", "NONE") and r.confidence >= t}
                pairs[name if t == reader.reader.threshold else f"{name}@{t}"].append((truth, said))
        boxes = readers["taught"].detector(image, threshold=0.5)
        for label in scene.labels:
            if label["face_up"] and label["visible"] >= 0.6 and label.get("index_visible"):
                found[1] += 1
                x0, y0, x1, y1 = label["box"]
                found[0] += any(x0 <= d.corners[:, 0].mean() <= x1 and y0 <= d.corners[:, 1].mean() <= y1 for d in boxes)
    held = taught.meta["held_back"]
    return {"enrol_seconds": round(seconds, 1), "held_back": [held["right"], held["wrong"], held["views"]],
            "scenes": scenes, "detector_found_0.5": round(found[0] / max(found[1], 1), 3),
            **{name: score(p) for name, p in pairs.items()}}


def sharpness(path: Path, lines: list[list[str]]) -> float:
    grey = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    h, w = grey.shape
    values = []
    for _, cx, cy, bw, bh in lines:
        cx, cy, bw, bh = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
        patch = grey[max(0, int(cy - bh)):int(cy + bh) + 1, max(0, int(cx - bw)):int(cx + bw) + 1]
        if patch.size:
            values.append(cv2.Laplacian(patch, cv2.CV_64F).var())
    return float(np.mean(values)) if values else 0.0


def handheld(root: Path, work: Path) -> dict:
    names = (root / "classes.txt").read_text().split()
    first, rest = work / "handheld-first", []
    for sub in ("images", "labels"):
        (first / sub).mkdir(parents=True, exist_ok=True)
    (first / "classes.txt").write_text((root / "classes.txt").read_text())
    groups = defaultdict(list)                 # the frames showing the same cards
    for image in sorted((root / "images").iterdir()):
        label = root / "labels" / f"{image.stem}.txt"
        lines = [line.split() for line in label.read_text().splitlines() if line.strip()]
        codes = {names[int(parts[0])] for parts in lines}
        groups[frozenset(codes)].append((image, label, codes, lines))
    seen = set()
    for key, frames in groups.items():
        # as a user would pick the clearest photo of a card: the frame whose labelled boxes are
        # sharpest (variance of the Laplacian), taught from; the others read
        best = max(frames, key=lambda f: sharpness(f[0], f[3])) if key else None
        for image, label, codes, _ in frames:
            if best is not None and image == best[0]:
                seen.add(key)
                os.symlink(image, first / "images" / image.name)
                os.symlink(label, first / "labels" / label.name)
            else:
                rest.append((image, codes))
    start = time.perf_counter()
    taught = enroll("handheld", "standard", labelled=first, allow_missing=True)
    seconds = time.perf_counter() - start
    readers = {"installed": TableReader("standard", ONE), "taught": TableReader("handheld", ONE)}
    pairs = defaultdict(list)
    for image, codes in tqdm(rest, desc="handheld frames", file=sys.stderr):
        picture = cv2.imread(str(image))
        for name, reader in readers.items():
            reads = reader.read(picture, min(LOWER))
            for t in (reader.reader.threshold, *LOWER):
                said = {r.card for r in reads if r.card not in ("BACK", "NONE") and r.confidence >= t}
                pairs[name if t == reader.reader.threshold else f"{name}@{t}"].append((set(codes), said))
    return {"enrol_seconds": round(seconds, 1), "enrolled_frames": len(seen), "read_frames": len(rest),
            "cards_not_found": len(taught.meta["not_found"]),
            "detector_negative": taught.meta["detector"]["negative"],
            "held_back": [taught.meta["held_back"][k] for k in ("right", "wrong", "views")], **{name: score(p) for name, p in pairs.items()}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenes", type=int, default=60)
    p.add_argument("--handheld", type=Path, default=Path(__file__).resolve().parents[2] / "shared/realcards/handheld")
    p.add_argument("--only", choices=["unseen-art", "handheld"])
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["WARREF_HOME"] = str(Path(tmp) / "home")
        if args.only != "handheld":
            figures["unseen_art"] = unseen_art(args.scenes, Path(tmp))
            print(json.dumps(figures["unseen_art"]))
        if args.handheld.is_dir() and args.only != "unseen-art":
            figures["handheld"] = handheld(args.handheld, Path(tmp))
            print(json.dumps(figures["handheld"]))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
