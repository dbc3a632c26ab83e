"""The reader's training set: index views cut from synthetic scenes the way the live pipeline cuts them.

For every face-up card whose index shows, the labelled oriented box (the card's visible area, as
the detector would find it) is jittered by a few percent of the card's size, ordered with
``geometry.portrait`` (upright or upside down at random) and turned into ``geometry.view_of``.
Written in ultralytics' classification layout: OUT/{train,val}/CODE/*.jpg.

A card seen steeply from its short end can look wider than tall, so its box's short edge is the
card's long one and the view shows its two blank corners. With ``sideways_none`` such a view is
labelled ``NONE`` (no index in sight) rather than the card, and a box too close to square to tell
(``geometry.squarish``, which the run time reads both ways up) gives its other way too, labelled the
same way: the reader learns that the wrong way up reads as nothing, and the right way wins.
``shows_index`` says whether a view shows one of the card's indices in a corner region the reader
reads: ``warref eval`` uses it to tell the half-hidden cards a cut of their box can show the
reader from those it cannot. (Labelling the training views by it, and cutting both ways of boxes
over part of a card, was tried for the Woolly reader on 2026-12-01 and measured worse:
models/reader-woolly.md.)

A cheap webcam's look (``effects.webcam``) is in a share ``WEBCAM_VIEWS`` of the views: datasets
rendered since the look exists have it in a share ``effects.WEBCAM_SHARE`` of their scenes (their
records say ``"webcam"``) and are taken as they are; in older ones (no scene says so,
``has_webcam_look``) that share of the scenes gets it here, on the whole frame before its views are
cut, so that the blur, noise and low resolution are at the frame's scale, as a live camera's are.
It is drawn from its own generator (seeded with ``seed``), so the views' jitter is what it was.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.geometry import CORNER, face_view, oriented, squarish, view_of
from vision.reader import NOT_A_CARD
from vision.synth import effects
from vision.synth.render import INDEX_REGION

JITTER = 0.03          # corner noise, as a share of the card's short side (detector error)
MIN_VISIBLE = 0.3      # cards less visible than this are left out
BACKS = 0.12           # share of the (many) mostly visible backs taken as "BACK" views
# artworks whose jokers print no corner index (letele's: a jester and blank corners): a reader of
# corners cannot tell them from the blank corners of any card, so their index views are left out
# (the standard reader's font views draw jokers as real decks print them, and blank corners as
# NONE); a face reader sees the jester, and reads their whole-card views
BLANK_JOKERS = {"letele"}
# decks whose reader sets label a sideways view NONE (measured better for them; the standard
# reader installed, run 8, was trained with such views kept as the card)
SIDEWAYS_NONE = {"woolly", "namikopy"}
UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
WEBCAM_VIEWS = effects.WEBCAM_SHARE   # share of the scenes of an older dataset given the webcam look here
WEBCAM_STREAM = 39                    # the look's generator: default_rng([seed, WEBCAM_STREAM])
WEBCAM_PROBE = 50                     # scene records read to tell whether a dataset has the look


def upright(ordered, printed) -> bool:
    """Whether a card cut from these ordered corners (``portrait``) has an index corner at its top
    left: its first corner is the printed top-left or bottom-right one (``printed``: the card's
    corners in print order), not one of the two blank ones."""
    k = int(np.argmin(np.linalg.norm(np.asarray(printed, np.float32) - np.asarray(ordered)[0], axis=1)))
    return k % 2 == 0


def shows_index(ordered, label: dict, deck: str) -> bool:
    """Whether the index view cut from these ordered corners (``oriented``, clockwise) shows one of
    the card's indices that is in sight (``label["index_boxes"]``, the renderer's) in one of the two
    corner regions the reader reads (``geometry.CORNER``). With the corners clockwise, an index
    there is the right way up: the top-left index lands in the view's top-left region or, turned
    half a circle, in its bottom-right one; turned a quarter it lands in one of the other two.
    For a whole card this is ``upright``; for a box over part of a card it says whether that cut
    can show the index at all."""
    card = cv2.getPerspectiveTransform(UNIT, np.asarray(label["corners"], np.float32))
    view = cv2.getPerspectiveTransform(np.asarray(ordered, np.float32), UNIT)
    x0, y0, x1, y1 = INDEX_REGION[deck]
    fx, fy = CORNER[deck]
    centres = _mapped(card, [((x0 + x1) / 2, (y0 + y1) / 2), (1 - (x0 + x1) / 2, 1 - (y0 + y1) / 2)])
    for centre in centres:
        if not any(b[0] <= centre[0] <= b[2] and b[1] <= centre[1] <= b[3] for b in label.get("index_boxes", [])):
            continue
        vx, vy = _mapped(view, [centre])[0]
        if 0 <= vx <= 1 and 0 <= vy <= 1 and ((vx <= fx and vy <= fy) or (vx >= 1 - fx and vy >= 1 - fy)):
            return True
    return False


def _mapped(H: np.ndarray, points) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(points, np.float32).reshape(-1, 1, 2), H).reshape(-1, 2)


def views(image: np.ndarray, scene: dict, deck: str, rng: np.random.Generator, per_card: int = 1,
          backs: float = 0.0, faces: bool = True, cut=None, sideways_none: bool = False, view=view_of):
    """(code, view) for each readable face-up card of one scene (unless not ``faces``), and for a
    share ``backs`` of its mostly visible backs (code "BACK"): the reader, not the detector, has
    the last word on faces. ``cut(image, corners, label)``: yield what it gives instead of the view,
    from the jittered corners (the evaluation cuts the run time's views, and wants the label). ``sideways_none``: see the
    module's docstring. ``view``: ``geometry.view_of`` (the corner indices) or ``face_view`` (the
    whole card, for a face reader)."""
    for label in scene["cards"]:
        if label.get("card") == "BACK":
            if label.get("visible", 0) < 0.6 or rng.random() >= backs:
                continue
        elif not faces or not label.get("face_up") or not label.get("index_visible") or label.get("visible", 0) < MIN_VISIBLE:
            continue
        elif label.get("card") == "JOKER" and label.get("artwork") in BLANK_JOKERS and view is not face_view:
            continue
        obb = np.array(label["obb"], np.float32)
        short = min(np.linalg.norm(obb[0] - obb[1]), np.linalg.norm(obb[1] - obb[2]))
        for _ in range(per_card):
            corners = obb + rng.normal(0, JITTER * short, obb.shape).astype(np.float32)
            flip = bool(rng.integers(2))
            if cut:
                yield label["card"], cut(image, corners, label)
                continue
            if not (sideways_none and label.get("corners") and label["card"] != "BACK"):
                yield label["card"], view(image, corners, deck, flip=flip)
                continue
            for sideways in (False, True) if squarish(corners) else (False,):
                way = oriented(corners, flip, sideways)
                yield label["card"] if upright(way, label["corners"]) else NOT_A_CARD, \
                    view(image, corners, deck, flip=flip, sideways=sideways)


def has_webcam_look(source: Path) -> bool:
    """Whether dataset ``source`` was rendered with the webcam look in a share of its scenes: one of
    its first ``WEBCAM_PROBE`` scene records says ``"webcam"`` (with a share of 0.35, 50 scenes all
    without it happen about once in two billion datasets)."""
    records = sorted((Path(source) / "scenes").glob("*/*.json"))[:WEBCAM_PROBE]
    return any("webcam" in json.loads(f.read_text()) for f in records)


def webcam_look(image: np.ndarray, rng: np.random.Generator, share: float = WEBCAM_VIEWS) -> np.ndarray:
    """A scene's frame (BGR uint8) with a cheap webcam's look (``effects.webcam``) a share ``share``
    of the time, else as it is. One draw from ``rng``, more when the look is given."""
    if image is None or rng.random() >= share:
        return image
    return effects.webcam(image, rng, bgr=True)


def build(sources: list[Path], out: Path, deck: str, limit: int | None = None, per_card: int = 1,
          seed: int = 1, quiet: bool = False, backs: float = BACKS, only_backs: bool = False,
          sideways_none: bool | None = None, face: bool = False, webcam: float = WEBCAM_VIEWS) -> dict[str, int]:
    """Write the views of every scene in ``sources`` (datasets of one deck) to ``out`` (``only_backs``:
    add just the backs' views to an existing set; ``sideways_none``: default, whether ``deck`` is
    in ``SIDEWAYS_NONE``; ``face``: whole-card views, for a face reader; ``webcam``: the share of
    the scenes of a dataset rendered without the webcam look that get it before their views are
    cut, see the module's docstring)."""
    if sideways_none is None:
        sideways_none = deck in SIDEWAYS_NONE
    out = Path(out)
    if not only_backs:
        shutil.rmtree(out, ignore_errors=True)
    rng = np.random.default_rng(seed)
    look = np.random.default_rng([seed, WEBCAM_STREAM])
    counts: dict[str, int] = {}
    jobs = []
    add_look = {source: webcam if not has_webcam_look(source) else 0.0 for source in map(Path, sources)}
    for source in map(Path, sources):
        for split in ("train", "val"):
            jobs += [(source, split, f) for f in sorted((source / "scenes" / split).glob("*.json"))[:limit]]
    for source, split, f in tqdm(jobs, desc=f"{deck} reader set", disable=quiet):
        scene = json.loads(f.read_text())
        image = cv2.imread(str(source / scene["image"]))
        if add_look[source]:
            image = webcam_look(image, look, add_look[source])
        for i, (code, view) in enumerate(views(image, scene, deck, rng, per_card, backs, faces=not only_backs,
                                                   sideways_none=sideways_none,
                                                   view=face_view if face else view_of)):
            folder = out / split / code
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{source.name}-{f.stem}-{i}.jpg"), view, [cv2.IMWRITE_JPEG_QUALITY, 92])
            counts[split] = counts.get(split, 0) + 1
    return counts
