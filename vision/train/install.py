"""`warref train`: build a training set, train, export to ONNX and install the model in models/.

Runs land in models/runs/ (git-ignored: ultralytics' weights, curves and plots); only the exported
.onnx and its .json (input size and class names) are copied into models/, where the run time finds
them. An interrupted run carries on with --resume.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from vision.reader import MODELS

RUNS = MODELS / "runs"


def _install(onnx: Path, name: str) -> Path:
    target = MODELS / f"{name}.onnx"
    shutil.copyfile(onnx, target)
    shutil.copyfile(onnx.with_suffix(".json"), target.with_suffix(".json"))
    return target


def detector(sources: list[Path], hours: float, imgsz: int, resume: bool, per_source: int,
             start_from: Path | None = None, device: str = "cpu", batch: int = 16, workers: int = 2,
             jobs: int = 1, fresh_set: bool = False) -> Path:
    from .detector import prepare, train

    data = Path("datasets/detector/data.yaml")
    if fresh_set or not ((resume or start_from) and data.exists()):
        data = prepare(sources, data.parent, per_source=per_source, jobs=jobs)
    run = "more" if start_from else "train"
    return _install(train(data, RUNS / "detector", hours=hours, imgsz=imgsz, resume=resume, start_from=start_from,
                          name=run, device=device, batch=batch, workers=workers), "detector")


def reader(deck: str, sources: list[Path], epochs: int, imgsz: int, resume: bool,
           font_views: int = 800) -> Path:
    """Index views from the scenes (plus, for the standard deck, font-drawn views), views of things
    that are not a card (NONE), then reader_net."""
    from . import reader_negatives
    from .reader_net import train
    from .reader_set import build

    views = Path(f"datasets/reader-{deck}")
    if not (resume and views.exists()):
        build(sources, views, deck)
        if deck == "standard" and font_views:
            from .index_fonts import write
            write(views, font_views)
        reader_negatives.build(sources[0], views, deck, limit=1000, close=600)
    return _install(train(views, RUNS / f"reader-{deck}", epochs=epochs, imgsz=imgsz, resume=resume), f"reader-{deck}")
