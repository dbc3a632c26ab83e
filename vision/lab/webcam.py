"""Webcam-like copies of a labelled real photo set (``realcards``), to measure the reader on cards
as small and soft as a webcam shows them, without a webcam.

The real photo sets are phone photos: their corner indices are 50-130 pixels tall (``phone/``),
where a webcam over a table, or a card held up to a laptop's (``handheld/``), shows them 20-50
pixels tall, blurred and JPEG-blocky. A *webcam copy* of a set has, for each photo:

- the photo scaled down (never up) so that its median card index is ``target`` pixels tall, a
  target drawn for the photo uniformly from ``INDEX_PX`` (20-40); the index height is measured
  from the labels: ``phone/`` (and ``handheld/``) label the printed corner index (rank over suit),
  so it is a label box's height; ``edje/`` labels whole cards, so it is ``EDJE_INDEX_FACTOR`` of
  the card's height (its box's long side). A photo without labels is measured by the set's
  median. A photo whose indices are already at most the target is not scaled;
- then softened (a Gaussian blur, sigma drawn from ``SOFTEN_SIGMA``) and saved as a JPEG of
  quality ``JPEG_QUALITY``: the file in the copy is that JPEG;
- its label file unchanged (YOLO labels are normalised to the image size, so they carry over),
  and the set's ``classes.txt``.

File names are kept (``realcards-audit.json``'s entries, keyed by them, apply to a copy too). The
draws for a photo come from ``default_rng([seed, crc32(file name)])``, so a copy is the same bytes
for the same seed and set, whatever else is in it. ``webcam.json`` in the copy records the set, a
fingerprint of its files, the seed, ``VERSION``, and per photo the target, scale and blur.

Copies of the shared sets are kept in ``CACHE`` (git-ignored), as CACHE/seedSEED/NAME-webcam, and
made only when missing or stale (another ``VERSION``, or the set's files changed); copies of a set
under another root (a test's tiny set) are kept in that root's ``.webcam-copies/``:

    folder = make_copy("phone")                 # datasets/generated/webcam/seed0/phone-webcam, made once
    photos = realcards.load("phone-webcam", root=folder.parent)
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zlib
from pathlib import Path

import cv2
import numpy as np

from . import realcards

INDEX_PX = (20.0, 40.0)         # the median index height a copy's photo is scaled to, drawn uniformly
SOFTEN_SIGMA = (0.8, 1.2)       # Gaussian blur after scaling
JPEG_QUALITY = 60
# The corner index (rank over suit pip) of the Bicycle-style cards in edje/, as a share of the
# card's height: measured on five upright cards in five edje photos (A, 10, A, 9, A; 176-320 px
# cards): 0.193, 0.199, 0.185, 0.179, 0.196, mean 0.19. Their label boxes are 2-3% taller than the
# cards, so the factor applied to a box is a little generous (the index a little smaller).
EDJE_INDEX_FACTOR = 0.19
WHOLE_CARD_SETS = {"edje": EDJE_INDEX_FACTOR}    # sets labelling whole cards: index share of the card
VERSION = 1                     # bump when a copy's making changes: cached copies are then rebuilt
CACHE = Path(__file__).resolve().parents[2] / "datasets" / "generated" / "webcam"   # git-ignored
SUFFIX = "-webcam"              # a copy of set NAME is the set NAME-webcam (``realcards.WEBCAM``)
OTHER_ROOTS = ".webcam-copies"  # where copies of a set under another root than the shared one are kept


def index_heights(name: str, photo: realcards.Photo) -> list[float]:
    """The heights in pixels of the card indices of ``photo`` of set ``name``, from its labels."""
    factor = WHOLE_CARD_SETS.get(name)
    if factor is None:
        return [label.box[3] - label.box[1] for label in photo.labels]
    return [factor * max(label.box[2] - label.box[0], label.box[3] - label.box[1]) for label in photo.labels]


def _copy(image: np.ndarray, index_heights_px, rng: np.random.Generator) -> tuple[bytes, dict]:
    """The copy's JPEG bytes, and what was drawn (see the module's docstring)."""
    target = float(rng.uniform(*INDEX_PX))
    sigma = float(rng.uniform(*SOFTEN_SIGMA))
    heights = np.asarray(list(index_heights_px), float)
    median = float(np.median(heights)) if heights.size else 0.0
    scale = min(1.0, target / median) if median > 0 else 1.0
    h, w = image.shape[:2]
    if scale < 1.0:
        image = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    image = cv2.GaussianBlur(image, (0, 0), sigma)
    ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("could not encode the webcam copy as JPEG")
    return jpg.tobytes(), {"target_px": round(target, 2), "index_px": round(median, 2), "scale": round(scale, 4),
                           "sigma": round(sigma, 3), "size": [image.shape[1], image.shape[0]]}


def webcam_copy(image: np.ndarray, index_heights_px, rng: np.random.Generator) -> np.ndarray:
    """A webcam-like copy of one photo (BGR uint8, as ``cv2.imread`` gives it) whose card indices
    are ``index_heights_px`` pixels tall: scaled down so that their median is a target drawn
    uniformly from ``INDEX_PX`` (never scaled up; no heights: not scaled), softened, and through a
    JPEG of quality ``JPEG_QUALITY`` (encoded and decoded)."""
    jpg, _ = _copy(image, index_heights_px, rng)
    return cv2.imdecode(np.frombuffer(jpg, np.uint8), cv2.IMREAD_COLOR)


def photo_rng(seed: int, file_name: str) -> np.random.Generator:
    """The generator for one photo of a copy: from the seed and the photo's file name alone."""
    return np.random.default_rng([seed, zlib.crc32(file_name.encode())])


def fingerprint(name: str, root: Path | None = None) -> str:
    """A hash of the names, sizes and times of the files of set ``name``: a copy made from other
    files is stale."""
    folder = Path(root or realcards.DEFAULT_ROOT) / name
    files = [folder / "classes.txt"] + sorted((folder / "images").iterdir()) + sorted((folder / "labels").iterdir())
    digest = hashlib.sha1()
    for f in files:
        st = f.stat()
        digest.update(f"{f.relative_to(folder)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def make_copy(name: str, out_dir: Path | None = None, seed: int = 0, root: Path | None = None) -> Path:
    """Write the webcam copy (see the module's docstring) of set ``name`` (under ``root``, by default
    ``realcards.DEFAULT_ROOT``) to ``out_dir``: images/, labels/, classes.txt and webcam.json,
    replacing what was there. The same seed gives the same bytes. Returns ``out_dir``. Without
    ``out_dir``: ``cached`` (the copy in the cache, made there if it is missing or stale).
    FileNotFoundError if there is no such set."""
    if out_dir is None:
        return cached(name, seed, root=root)
    src = Path(root or realcards.DEFAULT_ROOT) / name
    photos = realcards.load(name, root)
    every = [h for photo in photos for h in index_heights(name, photo)]
    set_median = float(np.median(every)) if every else 0.0
    out_dir = Path(out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    (out_dir / "images").mkdir(parents=True)
    (out_dir / "labels").mkdir()
    shutil.copyfile(src / "classes.txt", out_dir / "classes.txt")
    record: dict = {"set": name, "source": fingerprint(name, root), "seed": seed, "version": VERSION,
                    "index_px": list(INDEX_PX), "soften_sigma": list(SOFTEN_SIGMA), "jpeg_quality": JPEG_QUALITY,
                    "edje_index_factor": EDJE_INDEX_FACTOR, "photos": {}}
    for photo in photos:
        image = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"cannot read {photo.path}")
        heights = index_heights(name, photo) or ([set_median] if set_median else [])
        jpg, drawn = _copy(image, heights, photo_rng(seed, photo.name))
        out_name = photo.name if photo.path.suffix.lower() in (".jpg", ".jpeg") else photo.path.stem + ".jpg"
        (out_dir / "images" / out_name).write_bytes(jpg)
        label = src / "labels" / f"{photo.path.stem}.txt"
        if label.is_file():
            shutil.copyfile(label, out_dir / "labels" / label.name)
        record["photos"][out_name] = drawn
    (out_dir / "webcam.json").write_text(json.dumps(record, indent=1, sort_keys=True))
    return out_dir


def default_dir(name: str, seed: int = 0, root: Path | None = None, cache: Path | None = None) -> Path:
    """Where ``cached`` keeps the copy of set ``name``: CACHE/seedSEED/NAME-webcam for the shared sets
    (``cache``, if given, instead of CACHE), ROOT/.webcam-copies/seedSEED/NAME-webcam for a set under
    another ``root``; ``realcards.load(NAME-webcam, root=default_dir(...).parent)`` reads it."""
    if cache is None:
        shared = root is None or Path(root).resolve() == realcards.DEFAULT_ROOT.resolve()
        cache = CACHE if shared else Path(root) / OTHER_ROOTS
    return Path(cache) / f"seed{seed}" / f"{name}{SUFFIX}"


def cached(name: str, seed: int = 0, cache: Path | None = None, root: Path | None = None) -> Path:
    """The webcam copy of set ``name`` in ``default_dir``, made there first if it is missing or
    stale (made by another ``VERSION``, or from other files: ``fingerprint``); built in a scratch
    folder beside it, then renamed into place, so a copy half-written by an interrupted run is
    never read. Returns its folder."""
    realcards.classes(name, root)                      # FileNotFoundError when there is no such set
    out = default_dir(name, seed, root, cache)
    try:
        record = json.loads((out / "webcam.json").read_text())
        if record.get("version") == VERSION and record.get("source") == fingerprint(name, root):
            return out
    except (OSError, ValueError):
        pass
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=out.parent))
    try:
        make_copy(name, scratch / out.name, seed, root)
        old = None
        if out.exists():
            old = out.parent / f".{out.name}-old-{os.getpid()}"
            os.replace(out, old)
        try:
            os.replace(scratch / out.name, out)
        except OSError:                      # another run put its copy there first: keep that one
            if not (out / "webcam.json").is_file():
                raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out
