"""`warref eval`: score the reader on synthetic validation scenes and on the real photos, with pictures.

Writes into the report folder: report.json and report.md (the figures), predictions-*.jsonl (the
raw `warref detect --json` lines, scoreable again with `warref score`), confusion-*.png (what each
true rank was read as), calibration.png (confidence against the share right) and
mistakes-*.png (the most confident wrong readings, boxed on their photo).
"""
from __future__ import annotations

import json
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from . import metrics, realcards
from ..errors import BadImage
from ..geometry import oriented
from ..photos import read_photos
from ..config import PHOTO, ReaderConfig
from ..reader import MODELS, NOT_A_CARD, TableReader, load_image
from ..train.reader_set import shows_index, views
from .webcam import make_copy

LOW = PHOTO.gate                # detector threshold for evaluation, as every path reads: weak boxes kept for the curves
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JOKER", "BACK", "none"]


def predict(reader: TableReader, paths: list[Path], desc: str, quiet: bool = False,
            jobs: int | None = 1) -> list[dict[str, Any]]:
    """Every image read as ``reader`` reads it, down to ``LOW``, on ``jobs`` processes (None: one
    per core; ``vision.photos``), as `warref detect --json` lines."""
    lines = []
    for path, size, reads in tqdm(read_photos(reader, paths, LOW, jobs), total=len(paths), desc=desc, disable=quiet):
        if size is None:
            raise BadImage(reads)
        lines.append({"image": path, "width": size[0], "height": size[1], "cards": [r.as_json() for r in reads]})
    return lines


def _rank(code: str) -> str:
    return code if code in ("JOKER", "BACK") else (metrics.rank_of(code) or code)


def _contains(box, point) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def pairs_phone(photos, lines, threshold: float) -> list[tuple[str, str, float, str, list]]:
    """(truth, read, confidence, image, box) per labelled corner index: the most confident card whose
    box holds the index's centre ('none' if no card above the threshold does)."""
    by = {Path(p["image"]).name: p["cards"] for p in lines}
    out = []
    for photo in photos:
        cards = [c for c in by.get(photo.name, []) if c["confidence"] >= threshold]
        seen = set()
        for label in photo.labels:
            if label.card in seen:
                continue
            seen.add(label.card)
            centre = ((label.box[0] + label.box[2]) / 2, (label.box[1] + label.box[3]) / 2)
            hits = [c for c in cards if _contains(c["box"], centre)]
            best = max(hits, key=lambda c: c["confidence"]) if hits else None
            out.append((label.card, best["card"] if best else "none", best["confidence"] if best else 0.0,
                        str(photo.path), best["box"] if best else list(label.box)))
    return out


def pairs_edje(photos, lines, threshold: float) -> list[tuple[str, str, float, str, list]]:
    """(true rank, read rank, confidence, image, box) per labelled card: the most confident
    prediction overlapping it at IoU >= 0.5, whatever it reads ('none' if there is none)."""
    by = {Path(p["image"]).name: p["cards"] for p in lines}
    out = []
    for photo in photos:
        cards = [c for c in by.get(photo.name, []) if c["confidence"] >= threshold]
        for label in photo.labels:
            hits = [c for c in cards if metrics.iou(c["box"], label.box) >= 0.5]
            best = max(hits, key=lambda c: c["confidence"]) if hits else None
            out.append((label.card, _rank(best["card"]) if best else "none", best["confidence"] if best else 0.0,
                        str(photo.path), best["box"] if best else list(label.box)))
    return out


def confusion_png(pairs, path: Path, title: str):
    """True rank against read, in ``RANKS`` order; another deck's codes (Woolly, Namikopy, taught
    like them) after, sorted."""
    def ordered(names: set[str]) -> list[str]:
        return [r for r in RANKS if r in names] + sorted(names - set(RANKS))
    rows = ordered({_rank(t) for t, *_ in pairs})
    cols = ordered({_rank(p) if p != "none" else "none" for _, p, *_ in pairs})
    m = np.zeros((len(rows), len(cols)), int)
    for t, p, *_ in pairs:
        m[rows.index(_rank(t)), cols.index(_rank(p) if p != "none" else "none")] += 1
    matrix_png(m, rows, cols, path, title, "read as")


def matrix_png(m: np.ndarray, rows: list[str], cols: list[str], path: Path, title: str, xlabel: str) -> None:
    """A confusion matrix ``m`` (rows: the truth) drawn with each row's shares shaded and its counts."""
    # heavy (matplotlib, about 0.4 s): only when a picture is drawn (`warref judge` imports this module, draws none)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after choosing the Agg backend (no display needed)

    fig, ax = plt.subplots(figsize=(1.8 + 0.5 * len(cols) + 0.04 * max(map(len, rows)), 1 + 0.45 * len(rows)))
    ax.imshow(m / np.maximum(m.sum(1, keepdims=True), 1), cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            if m[i, j]:
                ax.text(j, i, m[i, j], ha="center", va="center", fontsize=8,
                        color="white" if m[i, j] > 0.6 * max(1, m[i].sum()) else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=90)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("truth")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def calibration_png(curves: dict[str, list[dict[str, float]]], path: Path):
    # heavy (matplotlib, about 0.4 s): only when a picture is drawn (`warref judge` imports this module, draws none)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after choosing the Agg backend (no display needed)

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfectly calibrated")
    for name, rows in curves.items():
        if rows:
            ax.plot([r["confidence"] for r in rows], [r["accuracy"] for r in rows], marker="o", label=name)
    ax.set_xlabel("stated confidence")
    ax.set_ylabel("share of readings that are right")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8)
    ax.set_title("Calibration of card readings")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def mistakes_png(pairs, path: Path, count: int = 24, title: str = ""):
    """The most confident wrong readings, each cut from its photo with the box drawn."""
    wrong = sorted([p for p in pairs if p[1] != "none" and _rank(p[0]) != _rank(p[1])], key=lambda p: -p[2])
    tiles = []
    for truth, read, conf, image_path, box in wrong[:count]:
        image = load_image(Path(image_path))
        x0, y0, x1, y1 = [int(v) for v in box]
        pad = max(10, (x1 - x0) // 4)
        cut = image[max(0, y0 - pad):y1 + pad, max(0, x0 - pad):x1 + pad].copy()
        cv2.rectangle(cut, (x0 - max(0, x0 - pad), y0 - max(0, y0 - pad)),
                      (x1 - max(0, x0 - pad), y1 - max(0, y0 - pad)), (0, 0, 255), 2)
        s = 200 / max(cut.shape[:2])
        tile = np.full((230, 200, 3), 255, np.uint8)
        cut = cv2.resize(cut, (max(1, int(cut.shape[1] * s)), max(1, int(cut.shape[0] * s))))
        tile[:cut.shape[0], :cut.shape[1]] = cut
        cv2.putText(tile, f"{truth} read {read} {conf:.2f}", (3, 222), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 160), 1)
        tiles.append(tile)
    if not tiles:
        tiles = [np.full((230, 200, 3), 255, np.uint8)]
        cv2.putText(tiles[0], "no wrong readings", (10, 115), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 120, 0), 1)
    while len(tiles) % 6:
        tiles.append(np.full((230, 200, 3), 255, np.uint8))
    sheet = np.vstack([np.hstack(tiles[i:i + 6]) for i in range(0, len(tiles), 6)])
    if title:
        sheet = np.vstack([np.full((30, sheet.shape[1], 3), 255, np.uint8), sheet])
        cv2.putText(sheet, title, (5, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1)
    cv2.imwrite(str(path), sheet)


# accuracy by card width in pixels (the labelled box's short sides): the index of a card under 60
# pixels wide is about 8 pixels tall; WIDE is about the card size docs/card-reader.md asks for
WIDTHS = ((0, 40), (40, 60), (60, 80), (80, 120), (120, 1e9))
WIDE = 80


def synthetic_views(reader: TableReader, dataset: Path, limit: int, quiet: bool = False) -> dict[str, Any]:
    """The reader alone on held-out synthetic scenes: each readable face-up card, cut from its labelled
    box as the run time cuts it, read; accuracy, and the share read (coverage) and precision at thresholds 0.5, 0.8, 0.9.
    A card read as ``NONE`` (no index in sight) counts against accuracy and coverage, but not against
    precision: the run time drops it, as it drops any reading under the threshold, and asks again.
    Also accuracy by the card's width in pixels (``WIDTHS``, and ``WIDE`` or more), and apart for the
    cards the generator marks ``occluded`` (less than half of the card in sight: a hand or another
    card over it, its box only the part that shows) and the rest, the cards the whole-frame figures
    count (``synthetic_scenes``). The occluded cards are split once more: those with an index in
    sight where some way of cutting their box shows it to the reader (``reader_set.shows_index``),
    and those with none (a strip whose index lies off its corners, or is covered), which no cut of
    that box can show the reader."""
    rng = np.random.default_rng(7)
    mistakes: dict[str, int] = {}
    seen: list[tuple[float, bool, bool]] = []          # (probability, right, read as NONE) per card
    widths: list[float] = []                            # each card's width in pixels (its box's short sides)
    hidden: list[bool] = []                             # each card marked occluded (under half in sight)
    cuttable: list[bool] = []                           # ... and whether a cut of its box shows an index
    for f in tqdm(sorted((dataset / "scenes" / "val").glob("*.json"))[:limit], desc="synthetic views", disable=quiet):
        scene = json.loads(f.read_text())
        image = cv2.imread(str(dataset / scene["image"]))
        for code, (corners, label) in views(image, scene, reader.deck, rng, cut=lambda _, c, label: (c, label)):
            hidden.append(bool(label.get("occluded")))
            cuttable.append(any(shows_index(oriented(corners, flip, sideways), label, reader.deck)
                                for flip in (False, True) for sideways in (False, True)) if "index_boxes" in label else True)
            probs = reader.probabilities(image, [corners])[0]                   # as the run time reads it
            guess, p = reader.reader.names[int(probs.argmax())], float(probs.max())
            seen.append((p, guess == code, guess == NOT_A_CARD))
            edges = np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1)
            widths.append(float(min(edges[0] + edges[2], edges[1] + edges[3]) / 2))
            if guess != code:
                mistakes[f"{code}->{guess}"] = mistakes.get(f"{code}->{guess}", 0) + 1
    worst = sorted(mistakes.items(), key=lambda kv: -kv[1])[:10]
    total = len(seen)
    at = {}
    for t in sorted({0.5, 0.8, 0.9, reader.reader.threshold}):
        kept = [hit for conf, hit, none in seen if conf >= t and not none]
        at[str(t)] = {"coverage": len(kept) / total if total else None,
                      "precision": sum(kept) / len(kept) if kept else None}
    by_width = {}
    for lo, hi in WIDTHS:
        hits = [hit for (_, hit, _), w in zip(seen, widths) if lo <= w < hi]
        by_width[f"{lo}-{hi}" if hi < 1e9 else f"{lo}+"] = _accuracy(hits)
    by_width[f"{WIDE}+"] = _accuracy([hit for (_, hit, _), w in zip(seen, widths) if w >= WIDE])
    by_occlusion = {name: _accuracy([hit for (_, hit, _), h in zip(seen, hidden) if h == want])
                    for name, want in (("not_occluded", False), ("occluded", True))}
    by_occlusion |= {name: _accuracy([hit for (_, hit, _), h, c in zip(seen, hidden, cuttable) if h and c == want])
                     for name, want in (("occluded_index_in_a_corner", True), ("occluded_no_index_in_a_corner", False))}
    return {"cards": total, "accuracy": sum(hit for _, hit, _ in seen) / total if total else None, "at": at,
            "read_as_none": sum(none for *_, none in seen) / total if total else None,
            "by_width": by_width, "by_occlusion": by_occlusion, "worst_confusions": worst}


def _accuracy(hits: list[bool]) -> dict[str, Any]:
    return {"cards": len(hits), "accuracy": sum(hits) / len(hits) if hits else None}


def synthetic_scenes(reader: TableReader, dataset: Path, limit: int, quiet: bool = False,
                     jobs: int | None = 1) -> dict[str, Any]:
    """The whole pipeline on held-out synthetic frames: identities per frame, as for phone/."""
    truth_all, readable = {}, {}
    for f in sorted((dataset / "scenes" / "val").glob("*.json"))[:limit]:
        scene = json.loads(f.read_text())
        name = Path(scene["image"]).name
        truth_all[name] = {c["card"] for c in scene["cards"] if c.get("face_up")} | \
            ({"BACK"} if any(not c.get("face_up") for c in scene["cards"]) else set())
        readable[name] = {c["card"] for c in scene["cards"] if c.get("face_up") and c.get("index_visible")
                          and not c.get("occluded")}
    paths = [dataset / "images" / "val" / name for name in truth_all]
    lines = predict(reader, paths, "synthetic frames", quiet, jobs)
    outcomes, labels = [], sum(len(v) for v in readable.values())
    for line in lines:
        name = Path(line["image"]).name
        best: dict[str, float] = {}
        for c in line["cards"]:
            if c["card"] != "BACK":
                best[c["card"]] = max(best.get(c["card"], 0.0), c["confidence"])
        outcomes += [(conf, code in truth_all[name], code in readable[name]) for code, conf in best.items()]
    def at(t):
        kept = [o for o in outcomes if o[0] >= t]
        return {"threshold": t, "precision": sum(o[1] for o in kept) / len(kept) if kept else 1.0,
                "recall": sum(o[2] for o in kept) / labels if labels else 0.0}
    return {"frames": len(lines), "readable_cards": labels, "outcomes": outcomes, "at": at}


def run(deck: str, out: Path, dataset: Path | None, root: Path | None, limit: int, threshold: float | None,
        quiet: bool = False, models: Path | None = None, config: ReaderConfig = PHOTO, audit: Path | None = None,
        jobs: int | None = 1, sets: tuple[str, ...] | None = None, photos_limit: int = 0) -> dict[str, Any]:
    """``jobs``: images read at once, one process each (None: one per core; `warref eval`'s
    default; ``vision.photos``). ``config``: how the real photos are read (``PHOTO`` as `warref
    detect` reads a photo, or with steps switched off; the synthetic frames are read as a live
    table reads them). ``sets``: the real sets scored (default ``SETS``: each labelled set and the
    webcam-like copies); ``photos_limit``: at most that many photos of each, evenly spaced (0: all).
    ``audit``: the labels' audit the real photos are also scored with
    (``realcards.apply_audit``); by default ``realcards.AUDIT`` when the photos are the real ones
    (no ``root``), else none."""
    if audit is None and root is None:
        audit = realcards.AUDIT
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    reader = TableReader(deck, **({"models": Path(models)} if models else {}))
    report: dict[str, Any] = {"deck": deck, "models": str(models or MODELS), "reader": {
        "threshold": reader.reader.threshold, "views": reader.reader.views,
        "face": reader.reader.meta.get("face"), "face_weight": reader.face_weight if reader.face else None,
        "members": reader.reader.meta.get("members", []), "sure": reader.reader.sure}}
    curves: dict[str, list] = {}
    if dataset and (Path(dataset) / "scenes" / "val").is_dir():
        report["synthetic_reader"] = synthetic_views(reader, Path(dataset), limit, quiet)
        frames = synthetic_scenes(reader, Path(dataset), max(1, limit // 4), quiet, jobs)
        curves["synthetic frames"] = metrics.reliability([(c, t) for c, t, _ in frames["outcomes"]])
        report["synthetic_frames"] = {"frames": frames["frames"], "readable_cards": frames["readable_cards"],
                                      "at_0.5": frames["at"](0.5),
                                      "at_stated": frames["at"](reader.reader.threshold if threshold is None else threshold)}
    elif dataset:
        how = (f"make them with `warref synth --deck {deck}`" if reader.name == reader.deck else
               "a taught deck's own measurement is on the views it held back: `warref decks`")
        report["synthetic_skipped"] = (f"no held-out synthetic scenes at {Path(dataset) / 'scenes' / 'val'} "
                                       f"({how}; or name a set with --dataset)")
    if reader.profile.real_photos or sets:   # the shared real photos are of the standard deck; sets named: of this one
        reader.config = config              # the real photos are read as `warref detect` reads a photo
        report["real_photo_steps"] = config.switched_on()
        report["real_photo_config"] = config.as_dict()
        report["real_sets"] = []
        for name in sets or SETS:
            report["real_sets"].append(name)
            try:
                where_from = copy_root(name, root)
                photos = sample(realcards.load(name, where_from), photos_limit)
            except (FileNotFoundError, ValueError) as err:
                report[name] = {"skipped": str(err)}
                continue
            lines = predict(reader, [p.path for p in photos], name, quiet, jobs)
            with open(out / f"predictions-{name}.jsonl", "w") as fh:
                fh.writelines(json.dumps(line) + "\n" for line in lines)
            where: list = []
            outcomes, score_at = metrics.scorer(name, photos, lines, where, where_from)
            identities = realcards.scoring(name, where_from) == "identities"
            pairs = (pairs_phone if identities else pairs_edje)(photos, lines, LOW)
            wanted = metrics.threshold_for_precision(outcomes, 0.995)
            report[name] = {"photos": len(photos), "scored_on": "identities" if identities else "ranks",
                            "at_0.5": asdict(score_at(0.5)),
                            "threshold_for_0.995": wanted,
                            "at_threshold_for_0.995": asdict(score_at(wanted)) if wanted is not None else None,
                            "read_rank_accuracy": sum(_rank(t) == _rank(p) for t, p, *_ in pairs) / len(pairs)}
            stated = reader.reader.threshold if threshold is None else threshold
            report[name]["at_stated"] = asdict(score_at(stated))
            report[name]["misses_at_stated"] = (metrics.identity_misses if identities else metrics.rank_misses)(
                photos, lines, stated)
            if identities and reader.deck == "standard":     # edje/ labels name ranks only; other decks have no suits
                report[name]["suits"] = metrics.suit_figures(photos, lines, stated)
                suits_png(report[name]["suits"], out / f"suits-{name}.png", f"{name}/: true suit vs read, at {stated:.2f}")
            if split := by_colour(name, photos, lines, stated, where_from):
                report[name]["by_colour"] = split
            # the readings counted wrong, to check by eye (the labels leave some cards out)
            report[name]["counted_wrong_at_stated"] = [
                {"photo": w[0], "confidence": round(o[0], 4)}
                | ({"card": w[1]} if identities else {"card": o[2], "box": w[1]})
                for o, w in zip(outcomes, where) if o[0] >= stated and not o[1]]
            if audit is not None:
                report[name]["audited"] = audited_score(name, photos, lines, stated, audit, where_from,
                                                        some=bool(photos_limit))
                audit_png(name, photos, audit, out / f"audit-{name}.png")
            curves[name] = metrics.reliability(outcomes)
            confusion_png(pairs, out / f"confusion-{name}.png", f"{name}/: true rank vs read (best box over it)")
            mistakes_png(pairs, out / f"mistakes-{name}.png", title=f"{name}/: most confident wrong readings")
    else:
        report["real_skipped"] = (f"warref has no labelled photos of {reader.deck} cards; score your own with "
                                  f"--root DIR --sets NAME (docs/decks.md)")
    calibration_png(curves, out / "calibration.png")
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    return report


SETS = realcards.SETS + tuple(name + realcards.WEBCAM for name in realcards.COPIED)


def copy_root(name: str, root: Path | None) -> Path | None:
    """Where set ``name`` is read from: ``root`` (None: the shared one), or for a webcam-like copy
    (``NAME-webcam``) the cache folder it is made into the first time (``vision.lab.webcam``)."""
    if realcards.base(name) == name:
        return root
    folder = make_copy(realcards.base(name), root=root)
    return folder.parent


def sample(photos: list, limit: int) -> list:
    """At most ``limit`` of ``photos``, evenly spaced (0: all)."""
    if not limit or len(photos) <= limit:
        return photos
    return [photos[round(k * (len(photos) - 1) / (limit - 1))] for k in range(limit)] if limit > 1 else photos[:1]


def suits_png(figures: dict[str, Any], path: Path, title: str) -> None:
    """The suit confusion matrix (``metrics.suit_figures``), rows the true suits, with each suit's recall."""
    rows = list(figures["confusion"])
    cols = [s for s in metrics.SUITS + ("none",) if any(s in r for r in figures["confusion"].values())]
    m = np.array([[figures["confusion"][r].get(c, 0) for c in cols] for r in rows])
    matrix_png(m, [f"{r} ({figures['recall'][r]:.0%} read)" for r in rows], cols, path, title, "read as (suit)")


def audited_score(name: str, photos, lines, threshold: float, audit: Path, root: Path | None,
                  some: bool = False) -> dict[str, Any]:
    """One set scored with the labels' audit applied (``realcards.apply_audit``): at ``threshold``,
    and where precision reaches 0.995."""
    fixed = realcards.apply_audit(name, photos, realcards.classes(name, root), audit, some)
    outcomes, score_at = metrics.scorer(name, fixed, lines, root=root)
    wanted = metrics.threshold_for_precision(outcomes, 0.995)
    return {"audit": str(audit), "photos_audited": sum(a != b for a, b in zip(fixed, photos)),
            "at_stated": asdict(score_at(threshold)), "threshold_for_0.995": wanted,
            "at_threshold_for_0.995": asdict(score_at(wanted)) if wanted is not None else None}


def audit_png(name: str, photos, audit: Path, path: Path) -> None:
    """Each photo the audit changes for set ``name``, its labels boxed in green, with what the audit
    says of it, so that anyone can check the audit by eye. Nothing is written when it changes none."""
    entries = json.loads(Path(audit).read_text()).get(realcards.base(name), {})
    tiles = []
    for photo in photos:
        entry = entries.get(photo.name)
        if not entry:
            continue
        image = load_image(photo.path)
        for label in photo.labels:
            x0, y0, x1, y1 = [int(v) for v in label.box]
            cv2.rectangle(image, (x0, y0), (x1, y1), (0, 160, 0), max(2, image.shape[1] // 200))
        s = 360 / max(image.shape[:2])
        small = cv2.resize(image, (int(image.shape[1] * s), int(image.shape[0] * s)), interpolation=cv2.INTER_AREA)
        tile = np.full((360 + 96, 360, 3), 255, np.uint8)
        tile[:small.shape[0], :small.shape[1]] = small
        what = "; ".join([f"labelled {a}, is {b}" for a, b in entry.get("relabel", [])] +
                         [f"shows {c}, unlabelled" for c in entry.get("unlabelled", [])])
        text = [photo.name[:44], what] + textwrap.wrap(entry["why"], 58)[:3]
        for k, line in enumerate(text):
            cv2.putText(tile, line, (4, 376 + 19 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0) if k else (90, 90, 90), 1)
        tiles.append(tile)
    if not tiles:
        return
    while len(tiles) % 3:
        tiles.append(np.full_like(tiles[0], 255))
    cv2.imwrite(str(path), np.vstack([np.hstack(tiles[i:i + 3]) for i in range(0, len(tiles), 3)]))


def black_and_white(image: np.ndarray) -> bool:
    """Whether an image has no colour (a black-and-white photo saved with three channels): no more
    than 1% of every 8th pixel of every 8th row has channels more than 4 grey levels apart. A
    black-and-white JPEG's colour noise is 0-2 levels; a colour photo of black cards on a grey
    table still has shadows, skin or wood well over 4."""
    if image.ndim < 3 or image.shape[2] == 1:
        return True
    few = image[::8, ::8, :3].astype(np.int16)
    spread = few.max(2) - few.min(2)
    return np.count_nonzero(spread > 4) <= 0.01 * spread.size


def by_colour(name: str, photos, lines, threshold: float, root: Path | None = None) -> dict[str, Any] | None:
    """One set's score at ``threshold`` apart for its black-and-white photos and its colour ones
    (``black_and_white``), when it has both: a third of ``phone/`` is black and white, where a
    heart and a spade differ only by shape. None when every photo is one kind."""
    grey = {p.name for p in photos if black_and_white(load_image(p.path))}
    if not grey or len(grey) == len(photos):
        return None
    out = {}
    for kind, want in (("black_and_white", True), ("colour", False)):
        some = [p for p in photos if (p.name in grey) == want]
        names = {p.name for p in some}
        mine = [line for line in lines if Path(line["image"]).name in names]
        out[kind] = {"photos": len(some), **asdict(metrics.scorer(name, some, mine, root=root)[1](threshold))}
    return out


def summary(report: dict[str, Any]) -> str:
    """The report's figures as a few lines of text."""
    lines = [f"deck {report['deck']}"]
    if report.get("reader", {}).get("face"):
        r = report["reader"]
        lines[0] += f" (with the face reader {r['face']}, weight {r['face_weight']}; stated threshold {r['threshold']})"
    if report.get("reader", {}).get("members"):
        lines[0] += f"; each corner also read by {', '.join(report['reader']['members'])}, averaged"
    if report.get("synthetic_skipped"):
        lines.append(f"  synthetic: skipped, {report['synthetic_skipped']}")
    if report.get("real_skipped"):
        lines.append(f"  real photos: skipped, {report['real_skipped']}")
    if "real_photo_steps" in report:
        lines[0] += f"; photo steps: {', '.join(report['real_photo_steps']) or 'none'}"
    if "synthetic_reader" in report:
        s = report["synthetic_reader"]
        half = s["at"]["0.5"]
        lines.append(f"  synthetic reader: {s['cards']} cards, accuracy {s['accuracy']:.4f}; "
                     f"{half['coverage']:.1%} read at >= 0.5 with precision {half['precision'] or 0:.4f}")
        for t, a in s["at"].items():
            if t != "0.5":
                lines.append(f"    at {t}: {a['coverage']:.1%} read, precision {a['precision'] or 0:.4f}")
        if s.get("by_width"):
            lines.append("    accuracy by card width (px): " + ", ".join(
                f"{k}: {v['accuracy']:.3f} ({v['cards']})" for k, v in s["by_width"].items() if v["cards"]))
        def buckets(names: dict[str, str]) -> list[str]:
            return [f"{names[k]}: {v['accuracy']:.4f} ({v['cards']})" for k, v in s.get("by_occlusion", {}).items()
                    if k in names and v["cards"]]
        if parts := buckets({"not_occluded": "with half or more in sight",
                             "occluded": "with under half of the card in sight"}):
            lines.append("    accuracy " + ", ".join(parts))
        if parts := buckets({"occluded_index_in_a_corner": "an index in sight where a cut of the box shows it",
                             "occluded_no_index_in_a_corner": "no index in sight where a cut of the box shows one"}):
            lines.append("      of those under half in sight, with " + "; with ".join(parts))
    if "synthetic_frames" in report:
        s = report["synthetic_frames"]
        lines.append(f"  synthetic frames: {s['frames']} frames, identity precision {s['at_0.5']['precision']:.4f} "
                     f"recall {s['at_0.5']['recall']:.4f} at 0.5")
        if s.get("at_stated") and s["at_stated"]["threshold"] != 0.5:
            a = s["at_stated"]
            lines.append(f"    at the stated threshold {a['threshold']:.2f}: precision {a['precision']:.4f} recall {a['recall']:.4f}")
    for name in report.get("real_sets", realcards.SETS):
        r = report.get(name)
        if not r:
            continue
        if "skipped" in r:
            lines.append(f"  {name}: skipped ({r['skipped']})")
            continue
        a = r["at_0.5"]
        what = "identity" if r.get("scored_on", "identities") == "identities" else "rank"
        lines.append(f"  {name}/ ({r['photos']} photos): {what} precision {a['precision']:.4f} recall {a['recall']:.4f}"
                     f" at 0.5" + (f", mAP50 {a['map50']:.4f}" if a.get("map50") is not None else "")
                     + f"; rank read right under the box {r['read_rank_accuracy']:.1%}")
        t = r["threshold_for_0.995"]
        if t is None:
            lines.append("    no threshold reaches precision 0.995")
        else:
            b = r["at_threshold_for_0.995"]
            lines.append(f"    precision >= 0.995 from threshold {t:.4f}: recall {b['recall']:.4f}")
        if "at_stated" in r:
            c = r["at_stated"]
            lines.append(f"    at the stated threshold {c['threshold']:.2f}: precision {c['precision']:.4f} "
                         f"recall {c['recall']:.4f}")
        if r.get("audited"):
            a, t = r["audited"]["at_stated"], r["audited"]["threshold_for_0.995"]
            n = r["audited"]["photos_audited"]
            lines.append(f"    with the labels' audit ({n} photo{'' if n == 1 else 's'}: cards the labels leave "
                         f"out or name wrong, checked by eye): at the stated threshold precision {a['precision']:.4f} "
                         f"recall {a['recall']:.4f}; precision >= 0.995 from "
                         + ("none" if t is None else f"{t:.4f}"))
        if r.get("counted_wrong_at_stated"):
            lines.append("    counted wrong at the stated threshold: " + ", ".join(
                f"{w['photo']} {w['card']} {w['confidence']:.2f}"
                for w in r["counted_wrong_at_stated"]))
        if r.get("by_colour"):
            lines.append("    at the stated threshold, " + "; ".join(
                f"{kind.replace('_', '-')} photos ({v['photos']}): precision {v['precision']:.4f} recall {v['recall']:.4f}"
                for kind, v in r["by_colour"].items()))
        if "misses_at_stated" in r:
            what = "identities" if r.get("scored_on", "identities") == "identities" else "cards"
            lines.append(f"    labelled {what} at the stated threshold: " + ", ".join(
                f"{kind} {n}" for kind, n in r["misses_at_stated"].items()))
        if "suits" in r:
            s = r["suits"]
            lines.append("    recall by suit at the stated threshold: " + ", ".join(
                f"{k} {v:.3f} ({s['cards'][k]})" for k, v in s["recall"].items()))
            wrong = [f"{t} as {g} {n}" for t, row in s["confusion"].items() for g, n in row.items()
                     if g not in (t, "none")]
            lines.append("    read as another suit: " + (", ".join(wrong) or "none"))
    return "\n".join(lines)
