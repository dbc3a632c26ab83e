"""Scoring card predictions against labelled photos, as ../shared/realcards/README.md prescribes.

Predictions are the `warref detect --json` lines: {"image": PATH, "cards": [{"card": "QH",
"confidence": 0.97, "box": [x0, y0, x1, y1]}, ...]}, matched to photos by file name.

- Identities (phone/): per image, the set of distinct labelled classes against the set of distinct
  classes predicted at or above the threshold; true positives, predictions and labels summed over
  images give precision and recall.
- Ranks (edje/): predicted classes collapse to rank; predictions of other ranks (2-8, jokers,
  backs) are ignored; each prediction, most confident first, matches the unmatched label of the
  same rank in the same image with the highest IoU if that is at least 0.5. Precision and recall
  at a threshold, and mAP50 (all-point interpolated AP, averaged over the labelled ranks).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from . import realcards
from ..reading import iou  # noqa: F401 (metrics.iou: the same overlap the reader uses)
from .realcards import Photo

EDJE_RANKS = ("9", "10", "J", "Q", "K", "A")


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    true_positives: int
    predictions: int
    labels: int
    threshold: float
    map50: float | None = None


def rank_of(code: str) -> str | None:
    """'QH' -> 'Q', '10D' -> '10'; None for a joker, a back or anything else."""
    code = code.upper()
    if len(code) >= 2 and code[-1] in "CDHS" and code[:-1] in ("2", "3", "4", "5", "6", "7", "8", "9",
                                                                  "10", "J", "Q", "K", "A"):
        return code[:-1]
    return code if code in EDJE_RANKS else None


def _by_name(predictions: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for p in predictions:
        out.setdefault(str(p["image"]).replace("\\", "/").rsplit("/", 1)[-1], []).extend(p.get("cards", []))
    return out


def identity_outcomes(photos: list[Photo], predictions: Iterable[dict[str, Any]],
                      where: list | None = None) -> tuple[list[tuple[float, bool]], int]:
    """Each distinct (image, class) predicted, with its best confidence and whether it is labelled
    in that image; and the number of distinct labelled (image, class) pairs. A class the photo shows
    unlabelled (``Photo.unlabelled``, from the audit) is left out: neither right nor wrong.
    ``where``: a list given gets each outcome's (photo name, class), in order."""
    preds = _by_name(predictions)
    outcomes, labelled = [], 0
    for photo in photos:
        truth = {label.card for label in photo.labels}
        labelled += len(truth)
        best: dict[str, float] = {}
        for card in preds.get(photo.name, []):
            best[card["card"]] = max(best.get(card["card"], 0.0), float(card["confidence"]))
        kept = [(card, conf) for card, conf in best.items() if card not in photo.unlabelled]
        outcomes += [(conf, card in truth) for card, conf in kept]
        if where is not None:
            where += [(photo.name, card) for card, _ in kept]
    return outcomes, labelled


def rank_outcomes(photos: list[Photo], predictions: Iterable[dict[str, Any]],
                  min_iou: float = 0.5, where: list | None = None) -> tuple[list[tuple[float, bool, str]], dict[str, int]]:
    """Every rank prediction (confidence, matched, rank), and the number of labels per rank.
    ``where``: a list given gets each outcome's (photo name, box), in order."""
    preds = _by_name(predictions)
    outcomes: list[tuple[float, bool, str]] = []
    labels: dict[str, int] = {}
    for photo in photos:
        truth = [(label.card, label.box) for label in photo.labels if label.card in EDJE_RANKS]
        for rank, _ in truth:
            labels[rank] = labels.get(rank, 0) + 1
        used = [False] * len(truth)
        ranked = sorted(((float(c["confidence"]), rank_of(c["card"]), c["box"])
                         for c in preds.get(photo.name, [])), key=lambda t: -t[0])
        for conf, rank, box in ranked:
            if rank not in EDJE_RANKS:
                continue
            best, best_iou = None, min_iou
            for i, (t_rank, t_box) in enumerate(truth):
                if not used[i] and t_rank == rank:
                    overlap = iou(box, t_box)
                    if overlap >= best_iou:
                        best, best_iou = i, overlap
            if best is not None:
                used[best] = True
            outcomes.append((conf, best is not None, rank))
            if where is not None:
                where.append((photo.name, [round(float(v)) for v in box]))
    return outcomes, labels


MISSES = ("read", "read below the threshold", "read as another card", "box off", "no box")


def _stand(mine: list[float], threshold: float, otherwise: str) -> str:
    """A label's kind (``MISSES``) from the confidences of the readings that name it, else ``otherwise``."""
    if not mine:
        return otherwise
    return "read" if max(mine) >= threshold else "read below the threshold"


def rank_misses(photos: list[Photo], predictions: Iterable[dict[str, Any]], threshold: float) -> dict[str, int]:
    """Where each labelled card (ranks 9-A) stands at ``threshold``, one kind each (``MISSES``, the
    first that fits): read (a prediction of its rank at IoU >= 0.5 reaching the threshold), read
    below the threshold (its rank at IoU >= 0.5, less sure), read as another card (a box at IoU
    >= 0.5, none of its rank), box off (the best box at IoU 0.1-0.5: a fan boxed as one card, a box
    a few degrees off), no box. Each label on its own, unlike the one-to-one matching of the score:
    a guide to what to work on, not a second score."""
    preds = _by_name(predictions)
    out = dict.fromkeys(MISSES, 0)
    for photo in photos:
        cards = preds.get(photo.name, [])
        for label in photo.labels:
            if label.card not in EDJE_RANKS:
                continue
            near = [(iou(c["box"], label.box), c) for c in cards]
            good = [c for o, c in near if o >= 0.5]
            mine = [float(c["confidence"]) for c in good if rank_of(c["card"]) == label.card]
            best = max((o for o, _ in near), default=0.0)
            out[_stand(mine, threshold, "read as another card" if good else "box off" if best >= 0.1 else "no box")] += 1
    return out


def identity_misses(photos: list[Photo], predictions: Iterable[dict[str, Any]], threshold: float) -> dict[str, int]:
    """Where each labelled identity of an image stands at ``threshold`` (``MISSES`` but box off:
    the labels box corner indices, not cards): read (predicted at or above the threshold), read
    below the threshold, read as another card (a predicted box holds the middle of one of its
    labelled corners), no box."""
    preds = _by_name(predictions)
    out = {k: 0 for k in MISSES if k != "box off"}
    for photo in photos:
        cards = preds.get(photo.name, [])
        for card in sorted({label.card for label in photo.labels}):
            mine = [float(c["confidence"]) for c in cards if c["card"] == card]
            middles = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
                       for b in (label.box for label in photo.labels if label.card == card)]
            boxed = any(c["box"][0] <= x <= c["box"][2] and c["box"][1] <= y <= c["box"][3]
                        for c in cards for x, y in middles)
            out[_stand(mine, threshold, "read as another card" if boxed else "no box")] += 1
    return out


def average_precision(outcomes: Sequence[tuple[float, bool]], labels: int) -> float:
    """All-point interpolated area under the precision-recall curve."""
    if labels == 0:
        return 0.0
    ordered = sorted(outcomes, key=lambda t: -t[0])
    tp = fp = 0
    points = []
    for _, hit in ordered:
        tp += hit
        fp += not hit
        points.append((tp / labels, tp / (tp + fp)))
    ap, prev_recall = 0.0, 0.0
    for i, (recall, _) in enumerate(points):
        if recall > prev_recall:
            ap += (recall - prev_recall) * max(p for _, p in points[i:])
            prev_recall = recall
    return ap


def at_threshold(outcomes: Sequence[tuple], labels: int, threshold: float, map50: float | None = None) -> Score:
    kept = [o for o in outcomes if o[0] >= threshold]
    tp = sum(1 for o in kept if o[1])
    return Score(tp / len(kept) if kept else 1.0, tp / labels if labels else 0.0, tp, len(kept), labels,
                 threshold, map50)


def score_identities(photos: list[Photo], predictions: Iterable[dict[str, Any]], threshold: float) -> Score:
    outcomes, labels = identity_outcomes(photos, predictions)
    return at_threshold(outcomes, labels, threshold)


def rank_score(outcomes: Sequence[tuple[float, bool, str]], labels: dict[str, int], threshold: float) -> Score:
    """Precision and recall at the threshold, and mAP50 over the labelled ranks."""
    aps = [average_precision([(c, h) for c, h, r in outcomes if r == rank], n) for rank, n in labels.items()]
    map50 = sum(aps) / len(aps) if aps else 0.0
    return at_threshold(outcomes, sum(labels.values()), threshold, map50)


def score_ranks(photos: list[Photo], predictions: Iterable[dict[str, Any]], threshold: float) -> Score:
    return rank_score(*rank_outcomes(photos, predictions), threshold)


def scorer(name: str, photos: list[Photo], predictions: Iterable[dict[str, Any]], where: list | None = None,
           root=None):
    """A real photo set's outcomes for ``predictions`` and a function giving its ``Score`` at a
    threshold: by identities or ranks as ``realcards.scoring`` says of set ``name`` under ``root``
    (``where``: as in the two outcome functions)."""
    if realcards.scoring(name, root) == "identities":
        outcomes, labels = identity_outcomes(photos, predictions, where)
        return outcomes, lambda t: at_threshold(outcomes, labels, t)
    outcomes, per_rank = rank_outcomes(photos, predictions, where=where)
    return outcomes, lambda t: rank_score(outcomes, per_rank, t)


SUITS = ("C", "D", "H", "S", "JOKER", "BACK")


def suit_of(code: str) -> str:
    """A card code's suit (``10C``: ``C``); a joker and a back are their own."""
    return code if code in ("JOKER", "BACK") else code[-1:]


def suit_figures(photos: list[Photo], predictions: Iterable[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """Per suit, for a set labelled with identities: each distinct labelled card of an image is
    read (predicted at ``threshold`` or more anywhere in the image), or else counts as what the
    surest reading at the threshold whose box holds one of its labelled corners reads, or
    ``none``. ``recall``: the share read, per suit; ``confusion``: true suit -> read suit -> count
    (a card read right counts under its own suit; a wrong rank of the right suit, too)."""
    preds = _by_name(predictions)
    confusion: dict[str, dict[str, int]] = {}
    hits: dict[str, list[bool]] = {}
    for photo in photos:
        cards = [c for c in preds.get(photo.name, []) if float(c["confidence"]) >= threshold]
        read = {c["card"] for c in cards}
        for card in sorted({label.card for label in photo.labels}):
            suit = suit_of(card)
            hits.setdefault(suit, []).append(card in read)
            if card in read:
                got = suit
            else:
                middles = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
                           for b in (label.box for label in photo.labels if label.card == card)]
                over = [c for c in cards for x, y in middles
                        if c["box"][0] <= x <= c["box"][2] and c["box"][1] <= y <= c["box"][3]]
                got = suit_of(max(over, key=lambda c: c["confidence"])["card"]) if over else "none"
            row = confusion.setdefault(suit, {})
            row[got] = row.get(got, 0) + 1
    order = [s for s in SUITS if s in hits]
    return {"threshold": threshold, "recall": {s: sum(hits[s]) / len(hits[s]) for s in order},
            "cards": {s: len(hits[s]) for s in order}, "confusion": {s: confusion[s] for s in order}}


def threshold_for_precision(outcomes: Sequence[tuple], target: float) -> float | None:
    """The lowest confidence threshold at which precision is at least ``target`` (most recall for
    that precision), or None if no threshold reaches it."""
    ordered = sorted(outcomes, key=lambda t: -t[0])
    tp, best = 0, None
    for i, o in enumerate(ordered):
        tp += bool(o[1])
        if (i + 1 == len(ordered) or ordered[i + 1][0] != o[0]) and tp / (i + 1) >= target:
            best = o[0]          # every prediction down to this confidence (ties included) is kept
    return best


def reliability(outcomes: Sequence[tuple], bins: int = 10) -> list[dict[str, float]]:
    """Calibration curve data: per confidence bin, the mean confidence and the share correct."""
    rows = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [o for o in outcomes if lo <= o[0] < hi or (b == bins - 1 and o[0] == 1.0)]
        if inside:
            rows.append({"low": lo, "high": hi, "count": len(inside),
                         "confidence": sum(o[0] for o in inside) / len(inside),
                         "accuracy": sum(1 for o in inside if o[1]) / len(inside)})
    return rows
