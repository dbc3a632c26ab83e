"""Keep a candidate model, or not: the fair rule of issue 58, on two `warref eval` reports.

    warref judge reports/installed reports/candidate [--clubs-before A.json --clubs-after B.json]

Both reports must read the same photos of every real set (`warref eval --out DIR`, with and without
``--models``). Each set is scored again from the report's saved predictions, with the labels' audit
(``realcards.apply_audit``), at the reader's stated threshold and at the live table's announce level
(``ANNOUNCE``: the live table names a card read at 0.8 or more; below that it asks to see it again).
A right reading is a labelled card (an identity, or a rank under its box for ``edje/``) read as
itself; a wrong one is any other reading at the threshold.

The candidate is kept when all of these hold:

- the wrong readings over all real sets rise by no more than ``WRONG_ALLOWANCE`` (1 per 200 labelled
  cards): small sets move by a card or two on noise, so "no set lower" is not the rule;
- no set loses more than ``SET_LOSS`` (3%) of its labelled cards in right readings;
- the clubs bench (`bench/bench_clubs.py --json`) does not fall, when both runs of it are given;
- and the right readings over all real sets rise, or the candidate brings the clubs bench to
  ``CLUBS_TARGET`` (the real sets hold few small clubs of the shapes that fail, so they cannot show
  that gain).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import metrics, realcards
from .evaluate import copy_root

WRONG_ALLOWANCE = 1 / 200      # wrong readings allowed to rise, per labelled card over all sets
SET_LOSS = 0.03                # right readings one set may lose, as a share of its labelled cards
CLUBS_TARGET = 0.99            # the clubs bench's target (bench/bench_clubs.py)
ANNOUNCE = 0.8                 # the live table announces a card read at this or more (three sightings)


@dataclass(frozen=True)
class SetFigures:
    """One real set read by one model: right and wrong readings and labelled cards at a threshold."""
    labels: int
    right: int
    wrong: int
    right_at_announce: int
    wrong_at_announce: int

    @property
    def recall(self) -> float:
        return self.right / self.labels if self.labels else 0.0

    @property
    def precision(self) -> float:
        said = self.right + self.wrong
        return self.right / said if said else 1.0


@dataclass
class Verdict:
    keep: bool
    reasons: list[str] = field(default_factory=list)


def scored(report_dir: Path, name: str, root: Path | None = None):
    """Set ``name`` of a `warref eval` report scored again from its saved predictions, with the labels'
    audit on the shared sets (``root`` None): ``metrics.scorer``'s outcomes and score function."""
    lines = [json.loads(line) for line in (Path(report_dir) / f"predictions-{name}.jsonl").read_text().splitlines()
             if line.strip()]
    where_from = copy_root(name, root)
    read = {Path(line["image"]).name for line in lines}
    every = realcards.load(name, where_from)
    photos = [p for p in every if p.name in read]
    if len(photos) != len(read):
        raise ValueError(f"{report_dir}: predictions for {name} name photos the set does not have")
    fixed = photos if root is not None else realcards.apply_audit(        # the audit is of the shared sets
        name, photos, realcards.classes(name, where_from), realcards.AUDIT, some=len(photos) != len(every))
    return metrics.scorer(name, fixed, lines, root=where_from)


def set_figures(report_dir: Path, name: str, threshold: float, root: Path | None = None) -> SetFigures:
    """Set ``name`` scored again (``scored``) at ``threshold`` and at ``ANNOUNCE``. ``root``: where
    the labelled sets are (None: the shared ones)."""
    _, score_at = scored(report_dir, name, root)
    stated, announce = score_at(threshold), score_at(ANNOUNCE)
    return SetFigures(stated.labels, stated.true_positives, stated.predictions - stated.true_positives,
                      announce.true_positives, announce.predictions - announce.true_positives)


def report_figures(report_dir: Path, root: Path | None = None) -> tuple[dict[str, SetFigures], float, list[str]]:
    """Every real set of a `warref eval` report, the threshold it was read at and the photos per set."""
    report = json.loads((Path(report_dir) / "report.json").read_text())
    threshold = report["reader"]["threshold"]
    names = [n for n in report.get("real_sets", []) if "skipped" not in report.get(n, {"skipped": 1})]
    return {n: set_figures(Path(report_dir), n, threshold, root) for n in names}, threshold, \
        [f"{n} {report[n]['photos']}" for n in names]


def clubs_figures(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The clubs bench's figures from its ``--json`` rows: the share of clubs read as the right club
    (all designs and the held-out ones) and of spades read as the right spade."""
    def right(keep) -> float:
        sub = [r for r in rows if keep(r)]
        return sum(r["read"] == r["rank"] + r["suit"] for r in sub) / len(sub) if sub else float("nan")
    return {"clubs": right(lambda r: r["suit"] == "C"),
            "clubs_held_out": right(lambda r: r["suit"] == "C" and r["held_out"]),
            "spades": right(lambda r: r["suit"] == "S")}


def judge(before: dict[str, SetFigures], after: dict[str, SetFigures],
          clubs_before: dict[str, float] | None = None, clubs_after: dict[str, float] | None = None) -> Verdict:
    """The rule (module docstring) on the same sets read by the installed model and the candidate."""
    if set(before) != set(after):
        raise ValueError(f"the reports read different sets: {sorted(before)} and {sorted(after)}")
    for name in before:
        if before[name].labels != after[name].labels:
            raise ValueError(f"{name}: {before[name].labels} labelled cards in one report, {after[name].labels} "
                             "in the other: read the same photos in both")
    verdict = Verdict(True)
    labels = sum(f.labels for f in before.values())
    wrong_rise = sum(f.wrong for f in after.values()) - sum(f.wrong for f in before.values())
    right_rise = sum(f.right for f in after.values()) - sum(f.right for f in before.values())
    allowed = WRONG_ALLOWANCE * labels
    if wrong_rise > allowed:
        verdict.keep = False
        verdict.reasons.append(f"wrong readings rise by {wrong_rise} over {labels} labelled cards "
                               f"(at most {allowed:.1f} allowed)")
    for name in before:
        lost = before[name].right - after[name].right
        if lost > SET_LOSS * before[name].labels:
            verdict.keep = False
            verdict.reasons.append(f"{name} loses {lost} of {before[name].labels} labelled cards "
                                   f"(more than {SET_LOSS:.0%})")
    clubs_met = False
    if clubs_before is not None and clubs_after is not None:
        if clubs_after["clubs"] < clubs_before["clubs"]:
            verdict.keep = False
            verdict.reasons.append(f"the clubs bench falls ({clubs_before['clubs']:.1%} -> {clubs_after['clubs']:.1%})")
        clubs_met = clubs_after["clubs"] >= CLUBS_TARGET
    if right_rise <= 0 and not clubs_met:
        verdict.keep = False
        verdict.reasons.append(f"right readings do not rise ({right_rise:+d}) and the clubs bench is not brought "
                               f"to {CLUBS_TARGET:.0%}")
    if verdict.keep:
        verdict.reasons.append(f"right readings {right_rise:+d}, wrong {wrong_rise:+d} (allowed {allowed:+.1f})"
                               + (", clubs bench at target" if clubs_met else ""))
    return verdict


def table(before: dict[str, SetFigures], after: dict[str, SetFigures], threshold: float) -> str:
    """A markdown table: each set, right / wrong before and after at the stated threshold, and the
    recall at the announce level."""
    rows = [f"| set (labelled) | installed, right / wrong at {threshold:g} | candidate | "
            f"recall at {ANNOUNCE:g}, installed -> candidate |",
            "|---|---|---|---|"]
    for name in before:
        b, a = before[name], after[name]
        rows.append(f"| `{name}` ({b.labels}) | {b.right} / {b.wrong} (P {b.precision:.3f} R {b.recall:.3f}) | "
                    f"{a.right} / {a.wrong} (P {a.precision:.3f} R {a.recall:.3f}) | "
                    f"{b.right_at_announce / b.labels:.3f} -> {a.right_at_announce / a.labels:.3f} |")
    tb = [sum(getattr(f, k) for f in before.values()) for k in ("labels", "right", "wrong")]
    ta = [sum(getattr(f, k) for f in after.values()) for k in ("labels", "right", "wrong")]
    rows.append(f"| all ({tb[0]}) | {tb[1]} / {tb[2]} | {ta[1]} / {ta[2]} | |")
    return "\n".join(rows)
