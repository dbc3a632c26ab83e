"""Make ultralytics work with no network and use both cores (../shared/ENVIRONMENT.md).

Call ``configure()`` before anything imports ultralytics: it sets the environment variables
ultralytics reads at import time, keeps its settings inside the project (.ultralytics/, git-ignored),
puts a font where its dataset check would otherwise download Arial.ttf, turns off every logger
integration, and lifts its one-thread limit on 2-core machines.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / ".ultralytics"


def train_threads() -> int:
    """Cores a training run uses: WARREF_TRAIN_THREADS if set (two runs can share the machine), else all."""
    return int(os.environ.get("WARREF_TRAIN_THREADS", 0)) or os.cpu_count() or 1


def configure(threads: int | None = None):
    threads = threads or train_threads()
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ["YOLO_CONFIG_DIR"] = str(CONFIG_DIR)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ.setdefault("CI", "true")          # keeps OpenVINO's telemetry quiet if it is ever used
    fonts = CONFIG_DIR / "Ultralytics"
    fonts.mkdir(parents=True, exist_ok=True)
    import matplotlib        # heavy (about 0.15 s): only for its DejaVu font, when configuring
    dejavu = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (fonts / name).exists():
            shutil.copyfile(dejavu, fonts / name)
    # ultralytics, torch: only in the training environment, and ultralytics after the variables above
    import ultralytics
    from ultralytics.utils import SETTINGS, torch_utils
    off = {key: False for key, value in SETTINGS.items() if isinstance(value, bool)}
    ultralytics.settings.update(off)
    torch_utils.NUM_THREADS = threads
    import torch             # only in the training environment (.venv-train)
    torch.set_num_threads(threads)
    return ultralytics
