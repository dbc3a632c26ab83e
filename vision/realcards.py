"""The labelled real photos in ../shared/realcards/ (never copied into the repository).

    phone/: corner-index boxes, identity classes (AC .. KS, JOKER, BACK)
    edje/:  whole-card boxes, rank classes (9 10 J Q K A); cards of rank 2-8 may be unlabelled

Label files are YOLO txt (class cx cy w h, normalised); boxes are returned in pixels.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image

DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "shared" / "realcards"
SETS = ("phone", "edje")


@dataclass(frozen=True)
class Label:
    card: str                                  # a class name from the set's classes.txt
    box: tuple[float, float, float, float]     # x0, y0, x1, y1 in pixels


@dataclass(frozen=True)
class Photo:
    path: Path
    width: int
    height: int
    labels: tuple[Label, ...]

    @property
    def name(self) -> str:
        return self.path.name


def load(name: str, root: Path | None = None) -> list[Photo]:
    """Every photo of one set with its labels, sorted by file name."""
    folder = Path(root or DEFAULT_ROOT) / name
    if not (folder / "classes.txt").is_file():
        raise FileNotFoundError(f"No labelled photo set at {folder} (expected classes.txt, images/, labels/).")
    classes = (folder / "classes.txt").read_text().split()
    photos = []
    for image in sorted((folder / "images").iterdir()):
        with Image.open(image) as im:
            width, height = im.size
        labels = []
        txt = folder / "labels" / f"{image.stem}.txt"
        for line in (txt.read_text().splitlines() if txt.is_file() else []):
            if not line.strip():
                continue
            cls, cx, cy, w, h = line.split()
            cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
            labels.append(Label(classes[int(cls)], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
        photos.append(Photo(image, width, height, tuple(labels)))
    return photos
