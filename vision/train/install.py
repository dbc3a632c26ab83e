"""`warref train`: build a training set, train, export to ONNX and install the model in models/.

Runs land in models/runs/ (git-ignored: ultralytics' weights, curves and plots); only the exported
.onnx and its .json (input size and class names) are copied into models/, where the run time finds
them. An interrupted run carries on with --resume.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from vision.reader import MODELS

from . import index_fonts, reader_negatives, reader_net, reader_set
from .detector import STRETCH, prepare
from .detector import train as train_detector
from .watch import watcher

RUNS = MODELS / "runs"
COLOURED = {"woolly"}      # decks whose colour is part of the card: their readers never see grey views


# how the run time uses a model, chosen by measuring it (models/README.md), not by training: a model
# trained again keeps the installed one's until they are measured again
RUN_TIME = ("views", "threshold", "threshold_why", "face", "face_weight")


def _install(onnx: Path, name: str, **facts) -> Path:
    """Copy a run's model and its .json into models/ (``facts``: more to write in the .json)."""
    target = MODELS / f"{name}.onnx"
    meta = json.loads(onnx.with_suffix(".json").read_text()) | facts
    if target.with_suffix(".json").exists():
        installed = json.loads(target.with_suffix(".json").read_text())
        meta.update({k: installed[k] for k in RUN_TIME if k in installed})
    shutil.copyfile(onnx, target)
    target.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    return target


def detector(sources: list[Path], hours: float, imgsz: int, resume: bool, per_source: int | list[int],
             start_from: Path | None = None, device: str = "cpu", batch: int = 16, workers: int = 2,
             jobs: int = 1, fresh_set: bool = False, lr: float | None = None, freeze_norms: bool = False,
             lr_final: float | None = None, freeze: int = 0, name: str | None = None, watch: int = 0,
             install: bool = True, stretch: float | None = None) -> Path:
    """``name``: the run's folder in models/runs/detector (default ``more`` with ``start_from``, else
    ``train``), so that candidates can train side by side on one set. ``watch``: read that many photos of
    every real set after each epoch and judge them against the installed models (``watch``).
    ``install``: False leaves the exported candidate in the run's folder. ``stretch``: the share of the
    set's full frames stored stretched square (default ``detector.STRETCH``)."""
    data = Path("datasets/detector/data.yaml")
    if fresh_set or not ((resume or start_from) and data.exists()):
        data = prepare(sources, data.parent, per_source=per_source, jobs=jobs,
                       stretch=STRETCH if stretch is None else stretch)
    run = name or ("more" if start_from else "train")
    callbacks = {}
    if watch:
        callbacks["on_model_save"] = watcher(watch)
    onnx = train_detector(data, RUNS / "detector", hours=hours, imgsz=imgsz,
                          resume=resume, start_from=start_from, name=run, device=device, batch=batch,
                          workers=workers, lr=lr, freeze_norms=freeze_norms, lr_final=lr_final, freeze=freeze,
                          callbacks=callbacks)
    return _install(onnx, "detector") if install else onnx


def reader(deck: str, sources: list[Path], epochs: int, imgsz: int, resume: bool,
           font_views: int = 800, face: bool = False, start_from: Path | None = None,
           lr: float | None = None) -> Path:
    """Index views from the scenes (plus, for the standard deck, font-drawn views), views of things
    that are not a card (NONE), then reader_net. ``face``: the deck's face reader instead (whole-card
    views, ``geometry.face_view``), which the installed index reader is then told to use beside it
    (its .json's ``"face"``). ``start_from``: an earlier run's best.pt (for a face reader, the index
    reader's weights are a good start). ``lr``: the top of the one-cycle schedule (default reader_net's
    3e-3; 1e-3 to go on from good weights)."""
    name = f"reader-{deck}-face" if face else f"reader-{deck}"
    views = Path("datasets") / name
    if not (resume and views.exists()):
        reader_set.build(sources, views, deck, face=face)
        if deck == "standard" and font_views and not face:
            index_fonts.write(views, font_views)
        reader_negatives.build(sources[0], views, deck, limit=1000, close=600, face=face)
    grey = 0.0 if deck in COLOURED else reader_net.GREY
    path = _install(reader_net.train(views, RUNS / name, epochs=epochs, imgsz=imgsz, resume=resume, grey=grey,
                                     one_corner=0.0 if face else reader_net.ONE_CORNER, start_from=start_from,
                                     **({"lr": lr} if lr else {})),
                    name, sideways_none=deck in reader_set.SIDEWAYS_NONE, **({"views": "face"} if face else {}))
    if face:
        index = MODELS / f"reader-{deck}.json"
        meta = json.loads(index.read_text())
        index.write_text(json.dumps(meta | {"face": path.name}, indent=1))
    return path
