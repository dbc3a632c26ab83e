"""Write a synthetic dataset: scenes, labels, crops, a data.yaml for ultralytics, and contact sheets.

    out/images/{train,val}/NNNNNN.jpg        the frames (JPEG artefacts are part of the scene)
    out/labels/{train,val}/NNNNNN.txt        YOLO oriented boxes: class x1 y1 ... x4 y4 (0 card, 1 back)
    out/scenes/{train,val}/NNNNNN.json       every label with identity, corners, visibility; camera...
    out/crops/{train,val}/CODE/NNNNNN_K.jpg  rectified face-up cards, upright, 200 x 280
    out/index/{train,val}/CODE/NNNNNN_K_C.jpg corner indices as they lie in the frame, with a margin
    out/data.yaml, out/manifest.json, out/contact_sheet.png, out/crops_sheet.png

Scene i is rendered from np.random.default_rng([seed, i]) alone, so a dataset is the same whatever
the number of worker processes. Every 10th scene goes to val.
"""
from __future__ import annotations

import json
import multiprocessing
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from referee.deck import load_deck
from vision import art

from . import held
from .clutter import pictures as clutter_pictures
from .layout import Deck
from .render import Scene, render

CLASSES = ("card", "back")
FEATURED_PER_SCENE = 2

_DECK: tuple[str, Deck, list[str]] | None = None


def load(deck_id: str, cache: Path | None = None, more_art: bool = False) -> tuple[Deck, list[str]]:
    """The deck's art, and its class list (the deck file's codes) in a fixed order. ``more_art``:
    the standard deck in AisleRiot's themes too (``art.faces``)."""
    codes = [c.code for c in load_deck(deck_id).cards]
    faces: dict[str, list] = {}
    for image in art.faces(deck_id, cache, more_art):
        faces.setdefault(image.code, []).append(image)
    missing = [c for c in codes if c not in faces]
    if missing:
        raise RuntimeError(f"No art for {deck_id} cards {missing}.")
    return Deck(faces, art.backs(deck_id, cache, more_art)), codes


def featured(codes: list[str], seed: int, index: int) -> list[str]:
    """The face-up cards scene ``index`` must show: a walk through a seeded shuffle of the classes,
    so any ceil(len(codes) / FEATURED_PER_SCENE) consecutive scenes show every class."""
    order = np.random.default_rng([seed, 2**31]).permutation(len(codes))
    return [codes[order[(index * FEATURED_PER_SCENE + k) % len(codes)]] for k in range(FEATURED_PER_SCENE)]


def split(index: int) -> str:
    return "val" if index % 10 == 0 else "train"


def scene(deck_id: str, deck: Deck, codes: list[str], seed: int, index: int, keep_mask: bool = False,
          rows: bool = False, close_ups: bool = False, clutter: bool = False, held_up: bool = False,
          backlit: float | None = None, pale: float = 0.0) -> Scene:
    """Scene ``index`` of a seeded dataset (``rows``: with rows of overlapping cards, ``layout.build``;
    ``close_ups``: a phone's close-up of a few cards instead of a game table; ``clutter``: photographed
    tables and things; ``held_up``: a card held up to a webcam, ``render``; ``backlit``: the share of
    those lit from behind, default ``held.BACKLIT``; ``pale``: the share before a pale wall, ``held.pale``)."""
    rng = np.random.default_rng([seed, index])
    return render(rng, deck_id, deck, featured(codes, seed, index), keep_mask=keep_mask, rows=rows,
                  close_ups=close_ups, clutter=clutter, held_up=held_up, backlit=backlit,
                  pale=pale)


def yolo_lines(sc: Scene) -> list[str]:
    h, w = sc.image.shape[:2]
    lines = []
    for label in sc.labels:
        pts = np.array(label["obb"], float) / [w, h]
        pts = np.clip(pts, 0, 1)
        cls = 0 if label["face_up"] else 1
        lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in pts.ravel()))
    return lines


def write_scene(out: Path, sc: Scene, deck_id: str, seed: int, index: int) -> dict[str, Any]:
    name, part = f"{index:06d}", split(index)
    paths = {k: out / k / part for k in ("images", "labels", "scenes")}
    for p in paths.values():
        p.mkdir(parents=True, exist_ok=True)
    (paths["images"] / f"{name}.jpg").write_bytes(sc.jpeg)
    (paths["labels"] / f"{name}.txt").write_text("".join(line + "\n" for line in yolo_lines(sc)))
    crop_files = []
    for k, (code, crop) in enumerate(sc.crops):
        folder = out / "crops" / part / code
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}_{k}.jpg"
        cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
        crop_files.append(str(path.relative_to(out)))
    for label in sc.labels:
        if "crop" in label:
            label["crop"] = crop_files[label["crop"]]
    index_count = Counter()
    for k, c, code, crop in sc.index_crops:        # corner indices, as a reader of indices sees them
        folder = out / "index" / part / code
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"{name}_{k}_{c}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
        index_count[code] += 1
    h, w = sc.image.shape[:2]
    record = {"image": f"images/{part}/{name}.jpg", "width": w, "height": h, "deck": deck_id,
              "seed": seed, "index": index, **sc.info, "cards": sc.labels}
    (paths["scenes"] / f"{name}.json").write_text(json.dumps(record))
    return {"split": part, "faces": Counter(l["card"] for l in sc.labels if l["face_up"]),
            "backs": sum(1 for l in sc.labels if not l["face_up"]),
            "occluded": sum(1 for l in sc.labels if l["occluded"]),
            "crops": Counter(code for code, _ in sc.crops), "index": index_count}


def _init(deck_id: str, cache: str | None, more_art: bool = False, options: dict[str, bool] | None = None) -> None:
    """A worker's deck, and ``options``: ``scene``'s keywords for what the scenes hold (rows,
    close-ups, clutter)."""
    global _DECK
    cv2.setNumThreads(1)
    deck, codes = load(deck_id, Path(cache) if cache else None, more_art)
    _DECK = (deck_id, deck, codes, options or {})


def _task(args: tuple[str, int, list[int]]) -> list[dict[str, Any]]:
    out, seed, indices = args
    deck_id, deck, codes, options = _DECK
    return [write_scene(Path(out), scene(deck_id, deck, codes, seed, i, **options), deck_id, seed, i)
            for i in indices]


def generate(deck_id: str, scenes: int, out: Path, seed: int, jobs: int = 1, cache: Path | None = None,
             progress: Callable[[int], None] | None = None, more_art: bool = False,
             rows: bool = False, close_ups: bool = False, clutter: bool = False,
             held_up: bool = False, backlit: float | None = None, pale: float = 0.0) -> dict[str, Any]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    deck, codes = load(deck_id, cache, more_art)  # fail early, in this process, if art is missing
    if clutter or held_up:
        clutter_pictures()                         # the same for the clutter's pictures
    options: dict[str, Any] = {"rows": rows, "close_ups": close_ups, "clutter": clutter, "held_up": held_up}
    if held_up:
        options["backlit"] = held.BACKLIT if backlit is None else backlit
        if pale:
            options["pale"] = pale
    chunks = [list(range(a, min(a + 20, scenes))) for a in range(0, scenes, 20)]
    tasks = [(str(out), seed, c) for c in chunks]
    totals = {"faces": Counter(), "backs": 0, "occluded": 0, "crops": Counter(), "index": Counter(),
              "train": 0, "val": 0}

    def add(results):
        for r in results:
            totals["faces"].update(r["faces"])
            totals["crops"].update(r["crops"])
            totals["index"].update(r["index"])
            totals["backs"] += r["backs"]
            totals["occluded"] += r["occluded"]
            totals[r["split"]] += 1
        if progress:
            progress(len(results))

    if jobs <= 1:
        _init(deck_id, str(cache) if cache else None, more_art, options)
        for t in tasks:
            add(_task(t))
    else:
        # spawn, not fork: a fork taken while OpenCV's thread pool is running can deadlock the child
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init,
                                 initargs=(deck_id, str(cache) if cache else None, more_art, options)) as pool:
            for results in pool.map(_task, tasks):
                add(results)
    (out / "data.yaml").write_text(
        f"# ultralytics dataset: oriented boxes of face-up cards and backs ({deck_id} deck)\n"
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        f"names:\n" + "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASSES)))
    manifest = {"deck": deck_id, "scenes": scenes, "seed": seed, "more_art": more_art, **options,
                "classes": list(CLASSES),
                "cards": codes, "train": totals["train"], "val": totals["val"],
                "face_labels": dict(sorted(totals["faces"].items())), "back_labels": totals["backs"],
                "occluded_labels": totals["occluded"], "crops": dict(sorted(totals["crops"].items())),
                "index_crops": dict(sorted(totals["index"].items())),
                "missing_classes": [c for c in codes if totals["faces"][c] == 0],
                "artworks": sorted({c.artwork for cs in deck.faces.values() for c in cs}),
                "backs": sorted({b.artwork for b in deck.backs})}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    contact_sheet(out, out / "contact_sheet.png")
    crops_sheet(out, codes, out / "crops_sheet.png")
    return manifest


def draw_labels(image: np.ndarray, labels: list[dict[str, Any]]) -> np.ndarray:
    img = image.copy()
    thick = max(1, img.shape[1] // 640)
    for label in labels:
        colour = (60, 220, 60) if label["face_up"] else (230, 140, 40)
        if label["occluded"]:
            colour = (40, 160, 255)
        cv2.polylines(img, [np.round(label["obb"]).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        if label["face_up"]:
            x, y = np.min(label["obb"], axis=0)
            cv2.putText(img, label["card"], (int(x), max(int(y) - 4, 12)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.45 * thick + 0.2, colour, thick, cv2.LINE_AA)
    return img


def contact_sheet(out: Path, path: Path, count: int = 16, columns: int = 4, width: int = 480) -> Path | None:
    files = sorted((out / "scenes").glob("*/*.json"))[:count]
    if not files:
        return None
    tiles = []
    for f in files:
        record = json.loads(f.read_text())
        img = draw_labels(cv2.imread(str(out / record["image"])), record["cards"])
        tile = np.zeros((int(width * 3 / 4), width, 3), np.uint8)      # 16:9 and 4:3 both fit
        h = int(img.shape[0] * width / img.shape[1])
        if h <= tile.shape[0]:
            tile[:h] = cv2.resize(img, (width, h), interpolation=cv2.INTER_AREA)
        else:                                                          # portrait (close-ups)
            w = int(img.shape[1] * tile.shape[0] / img.shape[0])
            tile[:, :w] = cv2.resize(img, (w, tile.shape[0]), interpolation=cv2.INTER_AREA)
        tiles.append(tile)
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i:i + columns]) for i in range(0, len(tiles), columns)]
    cv2.imwrite(str(path), np.vstack(rows))
    return path


def crops_sheet(out: Path, codes: list[str], path: Path, columns: int = 14) -> Path | None:
    tiles = []
    for code in codes:
        found = sorted((out / "crops").glob(f"*/{code}/*.jpg"))[:1]
        tile = cv2.resize(cv2.imread(str(found[0])), (100, 140)) if found else np.zeros((140, 100, 3), np.uint8)
        tile = cv2.copyMakeBorder(tile, 18, 0, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        cv2.putText(tile, code, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        tiles.append(tile)
    if not tiles:
        return None
    while len(tiles) % columns:
        tiles.append(np.full_like(tiles[0], 255))
    rows = [np.hstack(tiles[i:i + columns]) for i in range(0, len(tiles), columns)]
    cv2.imwrite(str(path), np.vstack(rows))
    return path
