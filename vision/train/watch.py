"""Watch a detector run on the real photos after every epoch, so a loss shows in the first hour.

`warref train detector --watch N` adds ``watcher`` as an ultralytics ``on_model_save`` callback: after
each epoch the weights just saved (last.pt, whose EMA ultralytics exports) become an ONNX candidate
in ``RUN/watch/epoch-K/`` beside links to the installed readers, `warref eval` reads the same ``N``
photos of every real set with it (evenly spaced, ``evaluate.sample``), and `warref judge` compares
that with the installed models on the same photos (read once, at the first epoch, into
``RUN/watch/installed/``). Each epoch's table and verdict are printed and appended to
``RUN/watch/log.md``; ``RUN/watch/figures.jsonl`` keeps each set's right and wrong readings.

The readings run in the run-time environment (``.venv``, or ``WARREF_EVAL_PYTHON``), not the training
one: the pipeline needs packages the training venv does not have, and never imports torch. The
training waits while they run (two cores: reading beside training would only slow both).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from .detector import export_onnx
from .offline import ROOT

INSTALLED = ROOT / "models"


def run_time_python() -> str:
    """The run-time environment's Python, which `warref eval` runs in."""
    return os.environ.get("WARREF_EVAL_PYTHON") or str(ROOT / ".venv" / "bin" / "python")


def candidate_folder(detector: Path, folder: Path, installed: Path = INSTALLED) -> Path:
    """``folder`` holding ``detector`` (.onnx) and links to every other installed model file."""
    return linked_models(folder, {"detector.onnx": detector}, installed)


def linked_models(folder: Path, replaced: dict[str, Path], installed: Path = INSTALLED) -> Path:
    """A candidate models folder: a copy of each file of ``replaced`` (name in models/ -> new file) and
    a link to every other .onnx and .json installed in ``installed`` (the run time reads them as it
    reads models/)."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in installed.iterdir():
        if f.is_file() and f.suffix in (".onnx", ".json") and f.name not in replaced and not (folder / f.name).exists():
            (folder / f.name).symlink_to(f.resolve())
    for name, new in replaced.items():
        (folder / name).unlink(missing_ok=True)
        shutil.copyfile(new, folder / name)
    return folder


def read_photos(models: Path | None, out: Path, photos: int, python: str | None = None) -> None:
    """`warref eval` of ``photos`` photos of every real set with ``models`` (None: the installed ones)."""
    command = [python or run_time_python(), "-m", "web.cli", "eval", "--out", str(out), "--photos", str(photos),
               "--dataset", str(out / "no-synthetic"), "--quiet", "--jobs", "1"]
    if models:
        command += ["--models", str(models)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"warref eval failed ({done.returncode}): {done.stderr.strip()[-600:]}")


def judged(installed: Path, candidate: Path, python: str | None = None) -> str:
    """`warref judge`'s table and verdict for two report folders."""
    done = subprocess.run([python or run_time_python(), "-m", "web.cli", "judge", str(installed), str(candidate)],
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"warref judge failed: {done.stderr.strip()[-600:]}")
    return done.stdout.strip()


def watcher(photos: int, python: str | None = None):
    """The ``on_model_save`` callback (module docstring)."""
    def watch(trainer) -> None:
        try:
            check(trainer)
        except Exception as err:     # a check that fails (a photo set moved, a tool missing) never stops training
            print(f"watch: epoch {trainer.epoch + 1} was not checked: {err!r}", flush=True)

    def check(trainer) -> None:
        began = time.monotonic()
        folder = Path(trainer.save_dir) / "watch"
        installed = folder / "installed"
        if not (installed / "report.json").exists():
            read_photos(None, installed, photos, python)
        epoch = trainer.epoch + 1
        here = folder / f"epoch-{epoch}"
        onnx = export_onnx(Path(trainer.last), here / "export")
        models = candidate_folder(onnx, here / "models")
        read_photos(models, here / "report", photos, python)
        verdict = judged(installed, here / "report", python)
        text = (f"\n## epoch {epoch} ({photos} photos a set, read in {time.monotonic() - began:.0f} s)\n\n"
                f"{verdict}\n")
        print(text, flush=True)
        with open(folder / "log.md", "a") as fh:
            fh.write(text)
        report = json.loads((here / "report" / "report.json").read_text())
        figures = {name: report[name]["audited"]["at_stated"] if report[name].get("audited")
                   else report[name]["at_stated"] for name in report.get("real_sets", []) if "at_stated" in report[name]}
        with open(folder / "figures.jsonl", "a") as fh:
            fh.write(json.dumps({"epoch": epoch, "sets": figures, "keep": verdict.splitlines()[-1]}) + "\n")
    return watch
