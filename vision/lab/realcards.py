"""The labelled real photos in ../shared/realcards/ (never copied into the repository).

    phone/:    corner-index boxes, identity classes (AC .. KS, JOKER, BACK)
    edje/:     whole-card boxes, rank classes (9 10 J Q K A); cards of rank 2-8 may be unlabelled
    handheld/: real webcam frames, corner-index boxes, identity classes as phone/

``NAME-webcam`` is a webcam-like copy of a set (``vision.lab.webcam``: indices 20-40 px, softened,
JPEG 60), made once into a cache folder and scored as its original is.

Label files are YOLO txt (class cx cy w h, normalised); boxes are returned in pixels.

Some photos show cards their labels leave out, or name a card wrong. ``load(..., audited=True)``
applies ``datasets/realcards-audit.json``, where each such card was checked by eye: a label that
names the wrong card is corrected (``relabel``), and a card a photo shows that no label names is
listed (``Photo.unlabelled``), so that a reading of it counts neither right nor wrong
(``metrics.identity_outcomes``), as the realcards README's "precision is a lower bound" implies.
Recall is still over the labels alone. Scores are given both ways (``warref eval``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

DEFAULT_ROOT = Path(__file__).resolve().parents[3] / "shared" / "realcards"
AUDIT = Path(__file__).resolve().parents[2] / "datasets" / "realcards-audit.json"
SETS = ("phone", "edje", "handheld")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")   # a standard card's rank alone
WEBCAM = "-webcam"                        # a set's webcam-like copy is named NAME-webcam
COPIED = ("phone", "edje")                # the sets scored with a webcam-like copy too


def base(name: str) -> str:
    """The set a copy was made from (``phone-webcam``: ``phone``), or the set itself."""
    return name.removesuffix(WEBCAM)


def scoring(name: str, root: Path | None = None) -> str:
    """How set ``name`` (under ``root``, where it is read from) is scored, from its classes.txt:
    ``ranks`` when its classes are a standard card's ranks alone, lettered ones among them (edje/'s
    9 10 J Q K A: a card's rank under its box), else ``identities`` (the cards each photo shows:
    phone/, handheld/, any set labelled with card codes, such as photos of a taught deck)."""
    names = set(classes(name, root)) - {"BACK"}
    return "ranks" if names and names <= set(RANKS) and names & {"A", "J", "Q", "K"} else "identities"


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
    unlabelled: tuple[str, ...] = ()           # classes the photo shows that no label names (audited)

    @property
    def name(self) -> str:
        return self.path.name


# where each real set comes from, for a checkout that does not have them (none is in the repository)
SOURCES = {
    "phone": "Roboflow Universe, cadyzedevelopmenthub/card-detection-zk7wu v12 (CC BY 4.0), the phone photos",
    "handheld": "Roboflow Universe, cadyzedevelopmenthub/card-detection-zk7wu v12 (CC BY 4.0), the webcam "
                "frames named <card>-<uuid> as committed in github.com/Ammememe/CardCounterML",
    "edje": "github.com/EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-"
            "Windows-10, images/train (Apache-2.0)",
}


def classes(name: str, root: Path | None = None) -> list[str]:
    """The class names of one set, in label-file order (its classes.txt)."""
    folder = Path(root or DEFAULT_ROOT) / name
    if not (folder / "classes.txt").is_file():
        source = SOURCES.get(name.removesuffix("-webcam"))
        raise FileNotFoundError(f"No labelled photo set at {folder} (expected classes.txt, images/, labels/)."
                                + (f" It comes from {source}, labelled as YOLO boxes; put it there or give "
                                   f"--root DIR." if source else ""))
    return (folder / "classes.txt").read_text().split()


def load(name: str, root: Path | None = None, audited: bool = False, audit: Path = AUDIT) -> list[Photo]:
    """Every photo of one set with its labels, sorted by file name; ``audited``: with ``audit``
    applied (``apply_audit``)."""
    folder = Path(root or DEFAULT_ROOT) / name
    names = classes(name, root)
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
            labels.append(Label(names[int(cls)], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
        photos.append(Photo(image, width, height, tuple(labels)))
    return apply_audit(name, photos, names, audit) if audited else photos


def apply_audit(name: str, photos: list[Photo], classes: list[str], audit: Path = AUDIT,
                some: bool = False) -> list[Photo]:
    """``photos`` with the audit's entries for set ``name`` applied: ``{"IMAGE": {"relabel": [[FROM,
    TO], ...], "unlabelled": [CLASS, ...], "why": "..."}}``. Every entry must fit the photos as they
    are (the photo there, a label of FROM in it, classes of the set, a card listed as unlabelled not
    labelled), else ValueError: an audit that no longer fits its photos is not applied silently.
    ``some``: ``photos`` is a sample of the set; entries for photos not in it are passed over."""
    entries = json.loads(Path(audit).read_text()).get(base(name), {})
    by_name = {p.name: k for k, p in enumerate(photos)}
    out = list(photos)
    for image, entry in entries.items():
        where = f"{Path(audit).name}, {name}/{image}"
        if image not in by_name:
            if some:                  # ``photos`` is a sample of the set: the entry's photo is not in it
                continue
            raise ValueError(f"{where}: no such photo in {name}/")
        if set(entry) - {"relabel", "unlabelled", "why"} or not entry.get("why"):
            raise ValueError(f"{where}: an entry has relabel and/or unlabelled, and says why")
        photo = out[by_name[image]]
        labels = list(photo.labels)
        for old, new in entry.get("relabel", []):
            hits = [k for k, label in enumerate(labels) if label.card == old]
            if new not in classes or len(hits) != 1:
                raise ValueError(f"{where}: relabel {old} -> {new} needs one label {old} and a class {new}")
            labels[hits[0]] = Label(new, labels[hits[0]].box)
        unlabelled = tuple(entry.get("unlabelled", []))
        for card in unlabelled:
            if card not in classes or any(label.card == card for label in labels):
                raise ValueError(f"{where}: {card} is not a class of {name}/, or a label already names it")
        out[by_name[image]] = Photo(photo.path, photo.width, photo.height, tuple(labels), unlabelled)
    return out
