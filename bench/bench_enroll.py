"""How well does a taught deck read (`warref enroll`), and how long does teaching take?

    python bench/bench_enroll.py [--scenes 60] [--only unseen-art|handheld|rectified] [--art A] [--json OUT]

Three measurements, each against the installed readers on the same pictures (issue 40):

1. **Unseen art**: a deck drawn here that no reader trained on, black faces printed in gold and
   silver (the standard deck's `cardsjs` art with its paper made black, black ink gold and red ink
   silver), enrolled from one image per card (the card alone, 52 cards, no joker), then read on
   ``--scenes`` synthetic table scenes dealt from that art (seed 7, the live reader on each
   frame). Identity precision and recall at the stated threshold over the face-up cards at least
   60% in sight with an index in sight; and what the detector finds of them. ``--art bellot``:
   the same with an AisleRiot theme no reader trained on (one not in ``aisleriot.THEMES``);
   ``--art woolly-inks``: the Woolly deck with every ink another colour (71 cards); ``--art
   coloured``: a kids' deck with faces coloured by suit (``coloured_deck``); ``--art cardsjs``
   or ``warref-print``: a control, art the readers trained on, on the same tables.
2. **Real webcam frames**: ``handheld/`` enrolled from one frame of each card, its sharpest
   (``--labelled``: each card found where its corner labels are), the other frames read (the live reader) and
   scored per frame on card identities (precision and recall at the stated threshold, as
   ../shared/realcards/README.md describes).
3. **A real deck taught from clear photos** (``rectified``): the deck of ``phone/`` (the same design
   as ``handheld/``'s) taught from one photo per card, its sharpest where it lies alone, and read
   on all of ``handheld/`` (webcam frames, the live reader) and on the other ``phone/`` photos (as
   `warref detect` reads a photo): what a family's deck taught from one good photo per card does.

Each enrols into a temporary ``$WARREF_HOME``. Prints the figures and the enrolment times.
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
from vision.config import LIVE, PHOTO  # noqa: E402
from vision.lab import realcards  # noqa: E402
from vision.reader import TableReader  # noqa: E402
from vision.synth.layout import Deck  # noqa: E402
from vision.synth.render import render  # noqa: E402
from vision.teach import teach  # noqa: E402

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


SUIT_PAPER = {"H": (250, 170, 190), "D": (250, 190, 120), "C": (150, 215, 150), "S": (140, 180, 235)}   # RGB


def coloured_deck(out: Path) -> dict[str, np.ndarray]:
    """A kids' deck with coloured faces: the standard deck's ``cardsjs`` art with its white paper
    pink for hearts, orange for diamonds, green for clubs and blue for spades (the print as it
    is), one PNG per card in ``out``; the art by code (RGB)."""
    out.mkdir(parents=True, exist_ok=True)
    cards = {}
    for face in art.faces("standard"):
        if face.artwork != "cardsjs" or face.code in cards or face.code.startswith(("BACK", "JOKER")):
            continue
        rgb = art.on_white(face.image).astype(np.float32)
        white = (rgb.min(2, keepdims=True) / 255) ** 4          # paper, not the print's own light parts
        paper = np.array(SUIT_PAPER[face.code[-1]], np.float32)
        cards[face.code] = (white * paper + (1 - white) * rgb).astype(np.uint8)
        cv2.imwrite(str(out / f"{face.code}.png"), cv2.cvtColor(cards[face.code], cv2.COLOR_RGB2BGR))
    return cards


def score(pairs) -> dict:
    """Identity precision and recall from (truth set, predicted set) per picture."""
    right = sum(len(t & p) for t, p in pairs)
    said = sum(len(p) for _, p in pairs)
    there = sum(len(t) for t, _ in pairs)
    return {"precision": round(right / max(said, 1), 4), "recall": round(right / max(there, 1), 4),
            "right": right, "said": said, "labelled": there}


def read_into(pairs: dict, readers: dict, picture: np.ndarray, truth: set[str], unlabelled=()) -> None:
    """``picture`` read by each reader; (truth, said) added to ``pairs`` at the stated threshold
    (key: the reader's name) and at each of ``LOWER`` (``name@t``). Cards in ``unlabelled`` (the
    labels' audit: shown, not labelled) count neither way."""
    for name, reader in readers.items():
        reads = reader.read(picture, min(LOWER))
        for t in (reader.reader.threshold, *LOWER):
            said = {r.card for r in reads if r.card not in ("BACK", "NONE", *unlabelled) and r.confidence >= t}
            pairs[name if t == reader.reader.threshold else f"{name}@{t}"].append((truth, said))


def theme_deck(theme: str, out: Path) -> dict[str, np.ndarray]:
    """An AisleRiot theme that no reader trained on (not in ``aisleriot.THEMES``), one PNG per card
    in ``out`` (52 cards); the art by code (RGB)."""
    from vision.art import aisleriot
    if theme in aisleriot.THEMES:
        raise SystemExit(f"--art {theme}: the readers trained on it; choose one not in {aisleriot.THEMES}")
    out.mkdir(parents=True, exist_ok=True)
    cards = {}
    for code, card in aisleriot.cut(aisleriot.render(aisleriot.FOLDER / f"{theme}.svgz")).items():
        if not code.startswith(("BACK", "JOKER")):
            cards[code] = art.on_white(card)
            cv2.imwrite(str(out / f"{code}.png"), cv2.cvtColor(cards[code], cv2.COLOR_RGB2BGR))
    return cards


def woolly_inks(out: Path, turn: float = 30.0) -> dict[str, np.ndarray]:
    """The Woolly deck printed in other inks: warref's ``warref-print`` art with every hue turned
    ``turn`` degrees (its red now orange, its orange yellow, ...: each colour where the built-in
    readers expect the next) on cream paper, one PNG per card in ``out``; the art by code (RGB)."""
    out.mkdir(parents=True, exist_ok=True)
    cards = {}
    for face in art.faces("woolly"):
        if face.artwork != "warref-print":
            continue
        hsv = cv2.cvtColor(art.on_white(face.image), cv2.COLOR_RGB2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(int) + round(turn / 2)) % 180).astype(np.uint8)
        rgb = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB).astype(np.float32) * np.array([1.0, 0.96, 0.86])
        cards[face.code] = np.clip(rgb, 0, 255).astype(np.uint8)
        cv2.imwrite(str(out / f"{face.code}.png"), cv2.cvtColor(cards[face.code], cv2.COLOR_RGB2BGR))
    return cards


def built_in_art(like: str, artwork: str, out: Path) -> dict[str, np.ndarray]:
    """One of warref's own artworks (``cardsjs``, ``warref-print``, ...), which the readers trained
    on: read on the same tables, the most the tables allow (a control). One PNG per card in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    cards = {}
    for face in art.faces(like):
        if face.artwork == artwork and face.code not in cards and not face.code.startswith(("BACK", "JOKER")):
            cards[face.code] = art.on_white(face.image)
            cv2.imwrite(str(out / f"{face.code}.png"), cv2.cvtColor(cards[face.code], cv2.COLOR_RGB2BGR))
    return cards


BUILT_IN_ART = {"cardsjs": "standard", "warref-print": "woolly"}     # controls: art the readers trained on


def unseen_art(scenes: int, work: Path, name: str = "dark") -> dict:
    """A deck no reader trained on taught and read on made-up tables: ``dark`` (the black deck),
    ``woolly-inks`` (``woolly_inks``) or an AisleRiot theme never trained on; or, as a control, one
    of ``BUILT_IN_ART``, which the readers trained on."""
    like = "woolly" if name in ("woolly-inks", "warref-print") else "standard"
    recipe = {"dark": dark_deck, "woolly-inks": woolly_inks, "coloured": coloured_deck,
              **{a: (lambda out, a=a: built_in_art(BUILT_IN_ART[a], a, out)) for a in BUILT_IN_ART}}.get(
        name, lambda out: theme_deck(name, out))
    cards = recipe(work / name)
    start = time.perf_counter()
    taught = teach(name.replace("_", "-"), like, cards=work / name)
    seconds = time.perf_counter() - start
    outline = (rounded_outline() * 255).astype(np.uint8)[..., None]
    faces = {code: [CardImage(like, code, name, np.dstack([cv2.resize(rgb, (CARD_W, CARD_H)), outline]))]
             for code, rgb in cards.items()}
    deck = Deck(faces, art.backs(like)[:3])
    readers = {"installed": TableReader(like, ONE), "taught": TableReader(taught.name, ONE)}
    pairs, found = defaultdict(list), [0, 0]
    for index in tqdm(range(scenes), desc="dark scenes", file=sys.stderr):
        rng = np.random.default_rng([7, index])
        featured = [deck.codes[int(k)] for k in rng.integers(0, len(deck.codes), 2)]
        scene = render(rng, like, deck, featured)
        image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
        truth = {label["card"] for label in scene.labels
                 if label["face_up"] and label["visible"] >= 0.6 and label.get("index_visible")}
        read_into(pairs, readers, image, truth)
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


def teaching_folder(root: Path, folder: Path, frames) -> Path:
    """``folder`` made a labelled set of ``frames`` (``frames_of`` rows) of set ``root``: links."""
    for sub in ("images", "labels"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "classes.txt").write_text((root / "classes.txt").read_text())
    for image, label, *_ in frames:
        os.symlink(image, folder / "images" / image.name)
        os.symlink(label, folder / "labels" / label.name)
    return folder


def handheld(root: Path, work: Path) -> dict:
    groups = defaultdict(list)                 # the frames showing the same cards
    for frame in frames_of(root):
        groups[frozenset(frame[2])].append(frame)
    taught_from, rest = [], []
    for key, frames in groups.items():
        # as a user would pick the clearest photo of a card: the frame whose labelled boxes are
        # sharpest (variance of the Laplacian), taught from; the others read
        best = max(frames, key=lambda f: sharpness(f[0], f[3])) if key else None
        for frame in frames:
            if best is not None and frame[0] == best[0]:
                taught_from.append(frame)
            else:
                rest.append((frame[0], frame[2]))
    first = teaching_folder(root, work / "handheld-first", taught_from)
    start = time.perf_counter()
    taught = teach("handheld", "standard", labelled=first, allow_missing=True)
    seconds = time.perf_counter() - start
    readers = {"installed": TableReader("standard", ONE), "taught": TableReader("handheld", ONE)}
    pairs = defaultdict(list)
    for image, codes in tqdm(rest, desc="handheld frames", file=sys.stderr):
        read_into(pairs, readers, cv2.imread(str(image)), set(codes))
    return {"enrol_seconds": round(seconds, 1), "enrolled_frames": len(taught_from), "read_frames": len(rest),
            "cards_not_found": len(taught.meta["not_found"]),
            "detector_negative": taught.meta["detector"]["negative"],
            "held_back": [taught.meta["held_back"][k] for k in ("right", "wrong", "views")], **{name: score(p) for name, p in pairs.items()}}


def frames_of(root: Path) -> list[tuple[Path, Path, set[str], list[list[str]]]]:
    """(photo, label file, the codes it shows, the label lines) for each photo of a labelled set."""
    names = (root / "classes.txt").read_text().split()
    out = []
    for image in sorted((root / "images").iterdir()):
        label = root / "labels" / f"{image.stem}.txt"
        lines = [line.split() for line in label.read_text().splitlines() if line.strip()]
        out.append((image, label, {names[int(parts[0])] for parts in lines}, lines))
    return out


def rectified(phone: Path, webcam: Path, work: Path, others: int = 50) -> dict:
    """A real deck taught from one clear photo per card, read on other real pictures of it: the
    deck of ``phone/`` (the same design as ``handheld/``'s), each card taught from its sharpest
    photo where it lies alone on a table (``--labelled``: found where its corner labels are,
    flattened), then read on every ``handheld/`` webcam frame (as the live table reads a frame) and
    on ``others`` of the other ``phone/`` photos, evenly spaced (as `warref detect` reads a photo,
    about 4 s each; 0: all; with the labels' audit, as `warref eval` scores them); the installed
    readers beside."""
    names = (phone / "classes.txt").read_text().split()
    photos, best = frames_of(phone), {}
    for code in sorted({c for f in photos for c in f[2]} - {"BACK"}):
        alone = [f for f in photos if f[2] == {code}] or [f for f in photos if code in f[2]]
        frame = max(alone, key=lambda f: sharpness(f[0], [line for line in f[3] if names[int(line[0])] == code]))
        best.setdefault(frame[0], frame)
    taught_from = set(best)
    chosen = teaching_folder(phone, work / "phone-one-each", best.values())
    start = time.perf_counter()
    taught = teach("phone-deck", "standard", labelled=chosen, allow_missing=True)
    seconds = time.perf_counter() - start
    # the labels' audit (cards a photo shows that no label names count neither way), where it fits
    audited = {p.path.name: (p.unlabelled, {label.card for label in p.labels})
               for p in realcards.load("phone", phone.parent, audited=phone.parent.resolve() == realcards.DEFAULT_ROOT.resolve())}
    sets = {"handheld": (ONE, [(f[0], f[2], ()) for f in frames_of(webcam)]),
            "phone_others": (PHOTO, [(f[0], audited[f[0].name][1], audited[f[0].name][0])
                                     for f in photos if f[0] not in taught_from])}
    if others:
        rest = sets["phone_others"][1]
        sets["phone_others"] = (PHOTO, [rest[int(k)] for k in np.linspace(0, len(rest) - 1, min(others, len(rest)))])
    figures = {"enrol_seconds": round(seconds, 1), "taught_from_photos": len(taught_from),
               "cards_not_found": len(taught.meta["not_found"]),
               "held_back": [taught.meta["held_back"][k] for k in ("right", "wrong", "views")]}
    for name, (config, items) in sets.items():
        readers = {"installed": TableReader("standard", config), "taught": TableReader("phone-deck", config)}
        pairs = defaultdict(list)
        for image, codes, unlabelled in tqdm(items, desc=name, file=sys.stderr):
            read_into(pairs, readers, cv2.imread(str(image)), codes - {"BACK"}, unlabelled)
        figures[name] = {who: score(p) for who, p in pairs.items()}
    return figures


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenes", type=int, default=60)
    p.add_argument("--handheld", type=Path, default=Path(__file__).resolve().parents[2] / "shared/realcards/handheld")
    p.add_argument("--phone", type=Path, default=Path(__file__).resolve().parents[2] / "shared/realcards/phone")
    p.add_argument("--phone-photos", type=int, default=50, help="rectified: other phone/ photos read (0: all 147)")
    p.add_argument("--art", default="dark", help="unseen art: dark (the black deck), woolly-inks (the Woolly deck "
                                                 "in other inks), coloured (faces coloured by suit) or an AisleRiot theme the readers never trained on "
                                                 "(e.g. bellot); controls, art the readers trained on: "
                                                 "cardsjs (standard), warref-print (Woolly)")
    p.add_argument("--only", choices=["unseen-art", "handheld", "rectified"])
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    figures = {}
    needs = {"handheld": [("--handheld", args.handheld)], "rectified": [("--handheld", args.handheld), ("--phone", args.phone)]}
    for part, folders in needs.items():
        for name, folder in folders:
            if args.only in (None, part) and not folder.is_dir():
                print(f"bench_enroll: no folder {folder} ({name}): {part} is skipped", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["WARREF_HOME"] = str(Path(tmp) / "home")
        if args.only in (None, "unseen-art"):
            figures["unseen_art"] = unseen_art(args.scenes, Path(tmp), args.art)
            print(json.dumps(figures["unseen_art"]))
        if args.handheld.is_dir() and args.only in (None, "handheld"):
            figures["handheld"] = handheld(args.handheld, Path(tmp))
            print(json.dumps(figures["handheld"]))
        if args.handheld.is_dir() and args.phone.is_dir() and args.only in (None, "rectified"):
            figures["rectified"] = rectified(args.phone, args.handheld, Path(tmp), args.phone_photos)
            print(json.dumps(figures["rectified"]))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
