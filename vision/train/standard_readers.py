"""The standard deck's three index readers, retrained on the full mix: one command, resumed where it stopped.

    .venv-train/bin/python -m vision.train.standard_readers [--plan]

Each step writes where the next looks and is skipped once done, and each training writes a
checkpoint every epoch (``reader_net``), so a session that ends mid-way is carried on by the same
command in the next one (on a fresh checkout the scenes are rendered again: they are never
committed). The result is a candidate models folder, ``models/runs/candidate``: the three new
readers beside links to every other installed model, to be measured with `warref eval --models`
and kept or not by `warref judge` (docs/training.md). Nothing is installed by this command.

The mix (issue 58):
- ``datasets/standard``: 10,000 scenes (seed 1) with AisleRiot's card themes; 35% of them with a
  cheap webcam's look (``effects.WEBCAM_SHARE``);
- ``datasets/standard-close``: 1,500 phone close-ups (seed 51), for the close-ups member;
- font-drawn index views, 800 a class (``index_fonts``: the suit designs of ``suit_shapes``, drawn
  from every installed typeface but the held-out ones), and ``NONE`` views (``reader_negatives``).

The main reader goes on from the installed one (``--start-from models/reader-standard.onnx``); the
two members go on from the new main reader, one on close-ups, one on views without colour, as the
installed members were made (models/reader-standard-closeups.md, reader-standard-grey.md).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from vision.synth.dataset import generate

from . import index_fonts, reader_negatives, reader_net, reader_set
from .offline import ROOT
from .watch import linked_models

DATA, RUNS = ROOT / "datasets", ROOT / "models" / "runs"
CANDIDATE = RUNS / "candidate"
MEMBERS = ("", "-closeups", "-grey")          # reader-standard{member}.onnx


@dataclass(frozen=True)
class Training:
    """One reader's training: its view set, run folder and reader_net settings."""
    member: str
    views: Path
    epochs: int
    lr: float
    start_from: Path
    grey: float | None = None

    tag: str = "r9"

    @property
    def run(self) -> Path:
        return RUNS / f"reader-standard{self.member}-{self.tag}"


MAIN = Training("", DATA / "reader-standard", 3, 1.5e-3, ROOT / "models" / "reader-standard.onnx")
TRAININGS = (MAIN,
             Training("-closeups", DATA / "reader-standard-close", 1, 1e-3, MAIN.run / "best.pt"),
             Training("-grey", DATA / "reader-standard", 1, 1e-3, MAIN.run / "best.pt", grey=1.0))


def render(jobs: int) -> None:
    for out, scenes, seed, options in ((DATA / "standard", 10_000, 1, {"more_art": True}),
                                       (DATA / "standard-close", 1_500, 51, {"more_art": True, "close_ups": True})):
        if not (out / "manifest.json").exists():
            print(f"rendering {scenes} scenes into {out}", flush=True)
            generate("standard", scenes, out, seed, jobs=jobs, **options)


def view_sets() -> None:
    for out, sources, limit, font_seed, none_seed in (
            (DATA / "reader-standard", [DATA / "standard"], None, 1, 7),
            (DATA / "reader-standard-close", [DATA / "standard-close", DATA / "standard"], 1800, 3, 8)):
        if (out / ".done").exists():
            continue
        print(f"views into {out}", flush=True)
        reader_set.build(sources, out, "standard", limit=limit, quiet=True)
        index_fonts.write(out, 800, seed=font_seed, quiet=True)
        index_fonts.write(out, 50, seed=202, split="val", quiet=True)        # font views in validation too
        reader_negatives.build(DATA / "standard", out, "standard", limit=1000, close=600, seed=none_seed, quiet=True)
        (out / ".done").touch()


MINED_FROM = (DATA / "standard-held2", DATA / "standard")   # the scenes mined for the detectors' stray boxes
MINED_SCENES = 600                                          # scenes of each (validation: a ninth)


def _marked(folder: Path, marker: str, said: str) -> bool:
    """Whether ``folder``'s ``marker`` file says ``said`` (what its views were last mined with)."""
    return (folder / marker).exists() and (folder / marker).read_text() == said


def _drop(folder: Path, prefix: str, marker: str) -> None:
    """Take ``folder``'s mined ``NONE`` views (``prefix*.jpg``) out of both splits, and its ``marker``."""
    if (folder / marker).exists() or any((folder / "train" / "NONE").glob(f"{prefix}*.jpg")):
        print(f"taking the {marker[1:]} views out of {folder}", flush=True)
    for split in ("train", "val"):
        for old in (folder / split / "NONE").glob(f"{prefix}*.jpg"):
            old.unlink()
    (folder / marker).unlink(missing_ok=True)


def mine(detectors: list[Path]) -> None:
    """Add to both view sets the ``NONE`` views of the boxes ``detectors`` put on no card
    (``reader_negatives.build_mined``), once per list of detectors (``.mined`` names them); no
    detectors: the view sets hold none."""
    said = "\n".join(str(d) for d in detectors)
    for out in (DATA / "reader-standard", DATA / "reader-standard-close"):
        if not detectors:
            _drop(out, "m", ".mined")
            continue
        if _marked(out, ".mined", said):
            continue
        print(f"mining {', '.join(d.name for d in detectors)}'s stray boxes into {out}", flush=True)
        print(reader_negatives.build_mined(list(MINED_FROM), out, detectors, "standard", limit=MINED_SCENES,
                                           quiet=True), flush=True)
        (out / ".mined").write_text(said)


INDEX_TABLES = 700                                          # flat tables mined for the index finder's mistakes


def mine_indices(readers: list[Path]) -> None:
    """Add to both view sets the ``NONE`` views of the places the index finder proposes where no
    index is and ``readers`` read a card (``reader_negatives.build_index_mined``), once per list of
    readers; no readers: the view sets hold none."""
    said = "\n".join(str(r) for r in readers)
    main, close = DATA / "reader-standard", DATA / "reader-standard-close"
    if not readers:
        for out in (main, close):
            _drop(out, "i", ".index-mined")
        return
    if not _marked(main, ".index-mined", said):
        print(f"mining the index finder's mistakes for {', '.join(str(r) for r in readers)} into {main}", flush=True)
        print(reader_negatives.build_index_mined(main, readers, INDEX_TABLES, quiet=True), flush=True)
        (main / ".index-mined").write_text(said)
    if not _marked(close, ".index-mined", said):
        for split in ("train", "val"):           # the same views for the close-ups member
            for old in (close / split / "NONE").glob("i*.jpg"):
                old.unlink()
            for f in (main / split / "NONE").glob("i*.jpg"):
                shutil.copyfile(f, close / split / "NONE" / f.name)
        (close / ".index-mined").write_text(said)


def trainings(tag: str, epochs: tuple[int, int] | None = None) -> tuple[Training, ...]:
    """The three trainings under run names ending ``-{tag}`` (the members start from that run's main
    reader); ``epochs``: the main reader's and each member's (default 3 and 1)."""
    main_epochs, member_epochs = epochs or (MAIN.epochs, TRAININGS[1].epochs)
    main = replace(MAIN, tag=tag, epochs=main_epochs)
    return (main,) + tuple(replace(t, tag=tag, start_from=main.run / "best.pt", epochs=member_epochs)
                           for t in TRAININGS[1:])


def train_all(trainings=TRAININGS) -> None:
    for t in trainings:
        if (t.run / "reader.onnx").exists():
            continue
        print(f"training reader-standard{t.member or ''} ({t.epochs} epochs from {t.start_from.name})", flush=True)
        reader_net.train(t.views, t.run, epochs=t.epochs, lr=t.lr, resume=True, start_from=t.start_from,
                         quiet=True, **({"grey": t.grey} if t.grey is not None else {}))


def candidate(out: Path = CANDIDATE, models: Path = ROOT / "models", trainings=TRAININGS) -> Path:
    """``out``: the three new readers (with the installed readers' .json: how the run time reads them)
    beside links to every other model installed in ``models``."""
    for t in trainings:
        name = f"reader-standard{t.member}"
        new = json.loads((t.run / "reader.json").read_text())["names"]
        old = json.loads((models / f"{name}.json").read_text())["names"]
        if new != old:
            raise ValueError(f"{name}: the new reader's classes are not the installed one's")
    shutil.rmtree(out, ignore_errors=True)
    return linked_models(out, {f"reader-standard{t.member}.onnx": t.run / "reader.onnx" for t in trainings}, models)


def plan(trainings=TRAININGS) -> list[str]:
    steps = [(f"scenes {DATA / 'standard'}", (DATA / "standard" / "manifest.json").exists()),
             (f"scenes {DATA / 'standard-close'}", (DATA / "standard-close" / "manifest.json").exists()),
             (f"views {DATA / 'reader-standard'}", (DATA / "reader-standard" / ".done").exists()),
             (f"views {DATA / 'reader-standard-close'}", (DATA / "reader-standard-close" / ".done").exists())]
    for t in trainings:
        done = (t.run / "reader.onnx").exists()
        state = "done" if done else f"checkpoint after epoch {_epoch(t.run)}" if (t.run / "checkpoint.pt").exists() else "to do"
        steps.append((f"train {t.run.name} ({t.epochs} epochs, lr {t.lr:g})", state if not done else True))
    return [f"{'done ' if s is True else 'to do' if s is False else s}: {what}" for what, s in steps]


def _epoch(run: Path) -> int:
    import torch            # only in the training environment (.venv-train)
    return torch.load(run / "checkpoint.pt", weights_only=False)["epoch"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", action="store_true", help="say which steps are done, and do nothing")
    ap.add_argument("--jobs", type=int, default=0, help="processes rendering scenes (default: one per core)")
    ap.add_argument("--tag", default="r9", help="the runs' names end -TAG; the candidate is models/runs/candidate-TAG "
                                               "(r9: models/runs/candidate)")
    ap.add_argument("--mine", nargs="+", type=Path, metavar="DETECTOR",
                    help="add NONE views of the boxes these detectors put on no card (reader_negatives.build_mined); "
                         "without it the view sets hold none")
    ap.add_argument("--mine-indices", nargs="+", type=Path, metavar="READER",
                    help="add NONE views of where the index finder errs with these readers "
                         "(reader_negatives.build_index_mined); without it the view sets hold none")
    ap.add_argument("--epochs", type=int, nargs=2, metavar=("MAIN", "MEMBER"),
                    help="epochs of the main reader and of each member (default 3 1)")
    ap.add_argument("--detector", type=Path, help="the candidate folder's detector (default: the installed one)")
    args = ap.parse_args()
    runs = trainings(args.tag, tuple(args.epochs) if args.epochs else None)
    if args.plan:
        print("\n".join(plan(runs)))
        return
    render(args.jobs or os.cpu_count() or 1)
    view_sets()
    mine(args.mine or [])                   # the view sets hold the mined views named here, no others
    mine_indices(args.mine_indices or [])
    train_all(runs)
    out = CANDIDATE if args.tag == "r9" else RUNS / f"candidate-{args.tag}"
    made = candidate(out, trainings=runs)
    if args.detector:
        for suffix in (".onnx", ".json"):
            (made / f"detector{suffix}").unlink(missing_ok=True)
            (made / f"detector{suffix}").symlink_to(args.detector.resolve().with_suffix(suffix))
    print(f"candidate: {made} (measure it: warref eval --models {made}; keep it or not: warref judge)")


if __name__ == "__main__":
    main()
