"""A card classifier trained on a synthetic dataset's crops, exported to ONNX.

The synth dataset's crops/{train,val}/CODE/*.jpg is ultralytics' classification layout, so the crops
folder is the dataset. Models are built from .yaml (a .pt name would download weights).
"""
from __future__ import annotations

import json
from pathlib import Path

from .offline import configure


def train(crops: Path, out: Path, epochs: int = 10, imgsz: int = 128, batch: int = 64,
          model: str = "yolo11n-cls.yaml", seed: int = 1, resume: bool = False, workers: int = 2,
          **extra) -> Path:
    """Train from scratch (or resume ``out``'s last run), export ONNX to ``out``/reader.onnx, and
    return that path. No left-right flips: a mirrored index is not a card."""
    configure()
    from ultralytics import YOLO

    out = Path(out).resolve()
    last = out / "train" / "weights" / "last.pt"
    if resume and last.exists():
        net = YOLO(str(last))
        net.train(resume=True)
    else:
        net = YOLO(model)
        settings = dict(fliplr=0.0, scale=0.3, erasing=0.3)
        settings.update(extra)
        net.train(data=str(Path(crops).resolve()), epochs=epochs, imgsz=imgsz, batch=batch, seed=seed,
                  deterministic=True, workers=workers, project=str(out), name="train", exist_ok=True,
                  plots=True, verbose=False, **settings)
    best = out / "train" / "weights" / "best.pt"
    net = YOLO(str(best if best.exists() else last))
    onnx = Path(net.export(format="onnx", imgsz=imgsz, simplify=True, dynamic=True))
    target = out / "reader.onnx"
    onnx.replace(target)
    names = net.names if isinstance(net.names, dict) else dict(enumerate(net.names))
    (out / "reader.json").write_text(json.dumps({"imgsz": imgsz, "names": {int(k): v for k, v in names.items()}},
                                                indent=1))
    return target
