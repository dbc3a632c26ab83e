"""Views of things that are not a card, labelled NONE: the reader learns to say so.

On real close-up photos the detector also boxes a pip, a court picture or a patch of table, and a
reader that only knows cards and backs has to call it one of them: big red diamonds were read as
backs with 0.9 confidence. These views are cut the way the run time cuts a card's views
(``geometry.corner_views``, both ways up) from boxes that are not a card:
- a box inside a face-up card, clear of its two corner indices (pips, down to a box inside one pip,
  court pictures; not blank pale paper, which the reader files under JOKER),
  from the synthetic scenes (webcam-sized cards) and from large flat renders (close-ups);
- a box on the table away from every card;
- with ``--detectors``, the boxes those detectors themselves put on a scene where no card is (a
  face, a window, a hand, a pip): the views the reader is shown at run time when its detector errs;
- with ``build_index_mined`` (`standard_readers --mine-indices READER...`), the places the index
  finder (``vision.indices``: a rank above a suit) proposes on cards lying flat where no index is (a
  small pip beside a big one) that those readers read as a card: the views the reader is shown when
  the finder errs.
Written into OUT/{train,val}/NONE/*.jpg beside the reader's other classes.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision import art, indices
from vision.geometry import CORNER, corner_views, face_view
from vision.reading import iou
from vision.synth.flat import flat_table
from vision.synth.textures import GENERATORS

CODE = "NONE"
BLANK = 10.0           # pale views plainer than this (grey standard deviation) are left out: a blank
                       # corner is what the synthetic jokers show, and the reader files it under JOKER
INDEX = ((0.0, 0.0, 0.26, 0.33), (0.74, 0.67, 1.0, 1.0))   # the corner index regions, card fractions


def _card_map(corners) -> np.ndarray:
    """Homography from card fractions (u, v in 0..1) to the image, from print-order corners."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    return cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))


def _inner_quad(rng: np.random.Generator) -> np.ndarray | None:
    """A box in card fractions inside the card and clear of both index regions, or None."""
    cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.15, 0.85)
    w = float(np.exp(rng.uniform(np.log(0.05), np.log(0.55))))     # down to inside one pip
    h = w * rng.uniform(1.0, 1.5) * (5 / 7)          # in card fractions (the card is 5:7)
    quad = cv2.boxPoints(((cx, cy * 1.4), (w, h * 1.4), rng.uniform(0, 180))).astype(np.float32)
    quad[:, 1] /= 1.4
    if quad.min() < 0.03 or quad.max() > 0.97:
        return None
    grid = np.linspace(0, 1, 6)
    a, b, d = quad[0], quad[1] - quad[0], quad[3] - quad[0]
    points = a + grid[:, None, None] * b + grid[None, :, None] * d
    for x0, y0, x1, y1 in INDEX:
        if ((points[..., 0] >= x0) & (points[..., 0] <= x1) & (points[..., 1] >= y0) & (points[..., 1] <= y1)).any():
            return None
    return quad


def inside_card(corners, rng: np.random.Generator, tries: int = 20) -> np.ndarray | None:
    """A box (image pixels) inside the card with these print-order corners, clear of its indices."""
    for _ in range(tries):
        quad = _inner_quad(rng)
        if quad is not None:
            return cv2.perspectiveTransform(quad[None], _card_map(corners))[0]
    return None


def on_table(image: np.ndarray, cards: list[np.ndarray], rng: np.random.Generator) -> np.ndarray | None:
    """A card-sized box on the table touching no card, or None."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for c in cards:
        cv2.fillConvexPoly(mask, np.asarray(c, np.int32), 255)
    for _ in range(20):
        side = rng.uniform(0.05, 0.2) * h
        quad = cv2.boxPoints(((rng.uniform(side, w - side), rng.uniform(side, h - side)),
                              (side, side * rng.uniform(1.0, 1.5)), rng.uniform(0, 180))).astype(np.float32)
        box = np.zeros_like(mask)
        cv2.fillConvexPoly(box, quad.astype(np.int32), 255)
        if not (box & mask).any():
            return quad
    return None


def _views(image, quad, deck, face=False):
    if face:        # whole-box views for a face reader, in the same order (two per way up)
        views = [face_view(image, quad, deck, flip, sideways) for sideways in (False, True) for flip in (False, True)]
    else:
        views = corner_views(image, quad, deck) + corner_views(image, quad, deck, sideways=True)
    return [None if _blank(v) else v for v in views]


def _blank(view: np.ndarray) -> bool:
    """Plain pale paper (a coloured patch, say inside a pip, is kept)."""
    return cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).std() < BLANK and cv2.cvtColor(view, cv2.COLOR_BGR2HSV)[..., 1].mean() < 60


def from_scenes(source: Path, split: str, deck: str, rng, limit: int | None = None, quiet: bool = False,
                face: bool = False):
    """NONE views from one split of a synthetic scene set: two inside face-up cards, one on the table."""
    for f in tqdm(sorted((Path(source) / "scenes" / split).glob("*.json"))[:limit], desc=f"not-a-card {split}",
                  disable=quiet):
        scene = json.loads(f.read_text())
        image = cv2.imread(str(Path(source) / scene["image"]))
        faces = [c for c in scene["cards"] if c.get("face_up") and c.get("visible", 0) > 0.95]
        for card in rng.permutation(len(faces))[:2] if faces else []:
            quad = inside_card(faces[card]["corners"], rng)
            if quad is not None:
                yield from _views(image, quad, deck, face)[rng.integers(2)::2]
        quad = on_table(image, [c["corners"] for c in scene["cards"]], rng)
        if quad is not None:
            yield from _views(image, quad, deck, face)[:2]


MINED_IOU = 0.3       # a detector's box overlapping every card's box less than this is on no card


def off_cards(detections, cards) -> list:
    """The face-up detections whose box overlaps no card of the scene (face up or down, however
    hidden) at IoU ``MINED_IOU`` or more and holds no card's corner index: boxes on something that
    is not a card (a sliver of a hidden card showing its index is a card, and left out)."""
    middles = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for c in cards for b in c.get("index_boxes", [])]
    out = []
    for d in detections:
        box = [*d.corners.min(0), *d.corners.max(0)]
        if d.kind == "card" and all(iou(box, c["box"]) < MINED_IOU for c in cards) \
                and not any(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in middles):
            out.append(d)
    return out


def mined(source: Path, split: str, detectors: list, deck: str, threshold: float = 0.05,
          limit: int | None = None, quiet: bool = False, face: bool = False):
    """NONE views of the boxes ``detectors`` put on no card in one split's scenes, read both ways
    up as the run time reads a box whose way up it does not know."""
    for f in tqdm(sorted((Path(source) / "scenes" / split).glob("*.json"))[:limit], desc=f"mined {split}",
                  disable=quiet):
        scene = json.loads(f.read_text())
        image = cv2.imread(str(Path(source) / scene["image"]))
        for detector in detectors:
            for d in off_cards(detector(image, threshold), scene["cards"]):
                yield from _views(image, d.corners, deck, face)


def away_from(placings: list[np.ndarray], true_points: list, deck: str = "standard",
              margin: float = 0.1) -> list[np.ndarray]:
    """The index finder's placings (cards guessed from a rank above a suit, print-order corners)
    whose corner view shows none of the true ranks in ``true_points``: no true rank inside the
    guessed card's top-left corner region (``geometry.CORNER``), widened by ``margin`` of the card.
    (A true index paired with another mark is a placing elsewhere whose view still shows it.)"""
    fx, fy = CORNER[deck]
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    points = np.asarray(true_points, np.float32).reshape(-1, 1, 2)
    out = []
    for c in placings:
        if len(points):
            uv = cv2.perspectiveTransform(points, cv2.getPerspectiveTransform(np.asarray(c, np.float32), unit))[:, 0]
            inside = (uv[:, 0] >= -margin) & (uv[:, 0] <= fx + margin) & (uv[:, 1] >= -margin) & (uv[:, 1] <= fy + margin)
            if inside.any():
                continue
        out.append(c)
    return out


def index_proposals(image: np.ndarray, true_points: list, readers: list, deck: str, rng,
                    risky: float = 0.3, most: int = 6, plain: int = 1) -> list[np.ndarray]:
    """Corner views the index finder (``indices.placings``) proposes in ``image`` showing no true
    index (``away_from``; ``true_points``: where the cards' ranks are): up to ``most`` that one of ``readers``
    reads as a card at ``risky`` or more (the finder's likely mistakes), surest first, and ``plain``
    others at random."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    far = away_from(indices.placings(indices.marks(grey)), true_points, deck)
    if not far:
        return []
    views = [indices.corner_view(image, c, deck) for c in far]
    best = np.zeros(len(views))
    for reader in readers:
        p = reader.probabilities(views, alone=True)
        card = np.array([reader.names[int(k)] not in indices.NOT_AN_INDEX for k in p.argmax(1)])
        best = np.maximum(best, np.where(card, p.max(1), 0.0))
    order = [i for i in np.argsort(-best) if best[i] >= risky][:most]
    rest = [i for i in range(len(views)) if i not in order]
    order += [rest[i] for i in rng.permutation(len(rest))[:plain]]
    return [views[i] for i in order]


def flat_index_negatives(count: int, codes: list[str], deck: str, readers: list, rng, quiet: bool = False):
    """``index_proposals`` on ``count`` made-up flat tables of one to three cards, any art, table and
    size from a far seat to a close-up."""
    artworks = sorted({f.artwork for f in art.faces(deck)})
    tables = sorted(GENERATORS)
    for _ in tqdm(range(count), desc="index finder, flat tables", disable=quiet):
        card_h = float(np.exp(rng.uniform(np.log(150), np.log(1100))))
        n = int(rng.integers(1, 4))
        cards = [(codes[rng.integers(len(codes))], (float(rng.uniform(100, 540)), float(rng.uniform(100, 540))),
                  float(rng.uniform(0, 360))) for _ in range(n)]
        image, placed = flat_table(deck, cards, size=(640, 640), card_h=card_h, seed=int(rng.integers(1 << 30)),
                                   artwork=artworks[rng.integers(len(artworks))], table=tables[rng.integers(len(tables))])
        points = [indices._at(np.roll(p.corners, -k, 0), indices.RANK) for p in placed for k in (0, 2)]
        yield from index_proposals(image, points, readers, deck, rng)


def close_ups(count: int, codes: list[str], deck: str, rng, face: bool = False):
    """NONE views from large flat cards (a card filling much of a photo)."""
    for i in range(count):
        code = codes[rng.integers(len(codes))]
        card_h = float(rng.uniform(300, 900))
        image, placed = flat_table(deck, [(code, (rng.uniform(300, 980), rng.uniform(200, 520)), rng.uniform(0, 360))],
                                   card_h=card_h, seed=int(rng.integers(1 << 30)))
        for _ in range(3):
            quad = inside_card(placed[0].corners, rng)
            if quad is not None:
                yield from _views(image, quad, deck, face)[rng.integers(2)::2]


def build(source: Path, out: Path, deck: str = "standard", codes: list[str] | None = None, limit: int | None = None,
          close: int = 1500, seed: int = 7, quiet: bool = False, face: bool = False) -> dict[str, int]:
    """``face``: whole-box views (``geometry.face_view``) for a face reader, instead of corners."""
    rng = np.random.default_rng(seed)
    counts = {}
    codes = codes or [p.name for p in (Path(out) / "train").iterdir() if p.is_dir() and p.name not in (CODE, "BACK")]
    for split, scene_limit, n_close in (("train", limit, close), ("val", limit and max(1, limit // 9), close // 9)):
        folder = Path(out) / split / CODE
        folder.mkdir(parents=True, exist_ok=True)
        n = 0
        for view in from_scenes(source, split, deck, rng, scene_limit, quiet, face):
            if view is None:
                continue
            cv2.imwrite(str(folder / f"s{n:06d}.jpg"), view)
            n += 1
        for view in tqdm(close_ups(n_close, codes, deck, rng, face), desc=f"close-ups {split}", disable=quiet):
            if view is None:
                continue
            cv2.imwrite(str(folder / f"c{n:06d}.jpg"), view)
            n += 1
        counts[split] = n
    return counts


def build_mined(sources: list[Path], out: Path, detector_paths: list[Path], deck: str = "standard",
                limit: int | None = None, quiet: bool = False, face: bool = False) -> dict[str, int]:
    """Add ``mined`` views (``m*.jpg``) from every scene set of ``sources`` to the view set ``out``."""
    from vision.detector import Detector       # onnxruntime: only when mining
    detectors = [Detector(Path(p), threads=os.cpu_count()) for p in detector_paths]
    counts = {}
    for split, scene_limit in (("train", limit), ("val", limit and max(1, limit // 9))):
        folder = Path(out) / split / CODE
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("m*.jpg"):         # mined again from the start: no views of an older detector
            old.unlink()
        n = 0
        for source in sources:
            for view in mined(Path(source), split, detectors, deck, limit=scene_limit, quiet=quiet, face=face):
                if view is not None:
                    cv2.imwrite(str(folder / f"m{n:06d}.jpg"), view)
                    n += 1
        counts[split] = n
    return counts


def build_index_mined(out: Path, reader_paths: list[Path], count: int = 1500, deck: str = "standard",
                      seed: int = 12, quiet: bool = False) -> dict[str, int]:
    """Add ``flat_index_negatives`` views (``i*.jpg``) to the view set ``out`` (validation: a ninth)."""
    from vision.reader import IndexReader     # onnxruntime: only when mining
    readers = [IndexReader(Path(p)) for p in reader_paths]
    codes = [p.name for p in (Path(out) / "train").iterdir() if p.is_dir() and p.name not in (CODE, "BACK", "JOKER")]
    rng = np.random.default_rng(seed)
    counts = {}
    for split, n_tables in (("train", count), ("val", max(1, count // 9))):
        folder = Path(out) / split / CODE
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("i*.jpg"):
            old.unlink()
        n = 0
        for view in flat_index_negatives(n_tables, sorted(codes), deck, readers, rng, quiet):
            cv2.imwrite(str(folder / f"i{n:06d}.jpg"), view)
            n += 1
        counts[split] = n
    return counts


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="a synthetic scene set (warref synth), e.g. datasets/standard")
    ap.add_argument("out", help="the reader's view set to add NONE to, e.g. datasets/reader-standard-all")
    ap.add_argument("--deck", default="standard")
    ap.add_argument("--limit", type=int, default=3000, help="scenes per split (val: a ninth)")
    ap.add_argument("--close", type=int, default=1500, help="large flat renders (val: a ninth)")
    ap.add_argument("--detectors", nargs="+", type=Path,
                    help="instead: mine the boxes these detectors put on no card in SOURCE's scenes "
                         "(SOURCE may be several scene sets, comma-separated)")
    args = ap.parse_args()
    if args.detectors:
        print(build_mined([Path(s) for s in args.source.split(",")], Path(args.out), args.detectors, args.deck,
                          limit=args.limit))
        raise SystemExit
    print(build(Path(args.source), Path(args.out), args.deck, limit=args.limit, close=args.close))
