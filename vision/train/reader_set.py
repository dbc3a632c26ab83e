"""The reader's training set: index views cut from synthetic scenes the way the live pipeline cuts them.

For every face-up card whose index shows, the labelled oriented box (the card's visible area, as
the detector would find it) is jittered by a few percent of the card's size, ordered with
``geometry.portrait`` (upright or upside down at random) and turned into ``geometry.view_of``.
Written in ultralytics' classification layout: OUT/{train,val}/CODE/*.jpg.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.geometry import view_of

JITTER = 0.03          # corner noise, as a share of the card's short side (detector error)
MIN_VISIBLE = 0.3      # cards less visible than this are left out
BACKS = 0.12           # share of the (many) mostly visible backs taken as "BACK" views
# artworks whose jokers print no corner index (letele's: a jester and blank corners): a reader of
# corners cannot tell them from the blank corners of any card, so their views are left out (the
# standard reader's font views draw jokers as real decks print them, and blank corners as NONE)
BLANK_JOKERS = {"letele"}


def views(image: np.ndarray, scene: dict, deck: str, rng: np.random.Generator, per_card: int = 1,
          backs: float = 0.0, faces: bool = True, cut=None):
    """(code, view) for each readable face-up card of one scene (unless not ``faces``), and for a
    share ``backs`` of its mostly visible backs (code "BACK"): the reader, not the detector, has
    the last word on faces. ``cut(image, corners)``: cut something else from the jittered corners
    instead of the view (the evaluation cuts the run time's views)."""
    for label in scene["cards"]:
        if label.get("card") == "BACK":
            if label.get("visible", 0) < 0.6 or rng.random() >= backs:
                continue
        elif not faces or not label.get("face_up") or not label.get("index_visible") or label.get("visible", 0) < MIN_VISIBLE:
            continue
        elif label.get("card") == "JOKER" and label.get("artwork") in BLANK_JOKERS:
            continue
        obb = np.array(label["obb"], np.float32)
        short = min(np.linalg.norm(obb[0] - obb[1]), np.linalg.norm(obb[1] - obb[2]))
        for _ in range(per_card):
            corners = obb + rng.normal(0, JITTER * short, obb.shape).astype(np.float32)
            flip = bool(rng.integers(2))
            yield label["card"], cut(image, corners) if cut else view_of(image, corners, deck, flip=flip)


def build(sources: list[Path], out: Path, deck: str, limit: int | None = None, per_card: int = 1,
          seed: int = 1, quiet: bool = False, backs: float = BACKS, only_backs: bool = False) -> dict[str, int]:
    """Write the views of every scene in ``sources`` (datasets of one deck) to ``out`` (``only_backs``:
    add just the backs' views to an existing set)."""
    out = Path(out)
    if not only_backs:
        shutil.rmtree(out, ignore_errors=True)
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    jobs = []
    for source in map(Path, sources):
        for split in ("train", "val"):
            jobs += [(source, split, f) for f in sorted((source / "scenes" / split).glob("*.json"))[:limit]]
    for source, split, f in tqdm(jobs, desc=f"{deck} reader set", disable=quiet):
        scene = json.loads(f.read_text())
        image = cv2.imread(str(source / scene["image"]))
        for i, (code, view) in enumerate(views(image, scene, deck, rng, per_card, backs, faces=not only_backs)):
            folder = out / split / code
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{source.name}-{f.stem}-{i}.jpg"), view, [cv2.IMWRITE_JPEG_QUALITY, 92])
            counts[split] = counts.get(split, 0) + 1
    return counts
