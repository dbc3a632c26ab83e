"""The detector trained on a borrowed GPU machine, in one prepared call.

Every CPU fine-tune of the detector has lost real cards in fans and rows (models/journal/2026-12-01-detector-runs.md);
the installed one (run 5) was trained on a GPU, with batch 128 and 28 epochs in 5 minutes. This
module makes such a run one command, for the sessions that are lent a GPU machine for a few
minutes (/work/.library/device). That machine has PyTorch, OpenCV, NumPy, Pillow and ONNX, but
not ultralytics, not the Debian fonts warref's own decks are drawn in, not the pictures of busy
tables, and no network; it takes a working tree of at most 64 MiB. So there are three steps:

1. Here: ``python -m vision.train.gpu bundle`` (``make gpu-bundle``) writes ``.gpu/`` (git-ignored):
   the ultralytics wheels for the GPU machine's Python, the font files named in
   ``vision.art.own.STYLES``, GIMP's patterns and the desktop photographs shrunk as the clutter
   keeps them. It prints the call to make (``COMMAND``, with ``CARRY``).
2. There: ``python3 -m vision.train.gpu job --out $OUT`` puts the fonts and pictures where they
   are here (never over a file already there), renders ``RECIPE``'s scenes on every core, builds
   the detector set, trains from ``models/detector.onnx`` with run 5's settings until ``--minutes``
   are up, and keeps the best weights so far (optimizer stripped) and the results in $OUT after
   every epoch, so a call cut short still brings back its best epoch.
3. Here: ``python -m vision.train.gpu finish BEST.pt --models DIR`` exports it to ONNX in a
   candidate models folder beside links to the installed readers, for ``warref eval --models DIR``
   and ``warref score``.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2

from vision.art import own
from vision.synth import clutter
from vision.synth.dataset import generate

from .detector import export_onnx, prepare, train

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / ".gpu"
GPU_PYTHON = "3.12"           # the GPU machine's python3 (/work/.library/device/KINDS.md)
WHEELS = ("ultralytics==8.4.190", "ultralytics-thop==2.2.3")
CARRY = [".gpu", "datasets/cache/art/standard"]
LIMIT_MB = 64                 # what a call takes along: the working tree and the carried paths
PHOTO_QUALITY = 92            # JPEG quality of the shrunk photographs in the bundle

# (deck, scenes, seed, options of warref synth): 6,400 scenes as run 5 had, with the kinds of table
# the CPU fine-tunes taught one at a time in the mix, and cards held up to a webcam (bench/bench_scenes.py
# --kind held-up). Seeds 211-219 are used by no other set.
RECIPE = (
    ("standard", 1500, 211, {}),
    ("standard", 500, 219, {"held_up": True}),
    ("standard", 600, 212, {"rows": True}),
    ("standard", 500, 213, {"close_ups": True}),
    ("standard", 900, 214, {"clutter": True}),
    ("woolly", 800, 215, {}),
    ("woolly", 400, 216, {"clutter": True}),
    ("namikopy", 800, 217, {"rows": True}),
    ("namikopy", 400, 218, {"clutter": True}),
)
VAL_SCENES = 75               # validation scenes taken from each source: 675 scenes, 1,350 images in all
BATCH, WORKERS = 128, 14      # run 5's settings on the H200's 16 cores
SPARE_S = 90                  # seconds of the job's time not given to ultralytics' time budget
SHM = Path("/dev/shm")        # where the loading workers hand their batches to the training process

COMMAND = ("python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "
           ".gpu/whl/*.whl && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 && set -o pipefail && "
           "python3 -m vision.train.gpu job --minutes {minutes} --out $OUT 2>&1 | tee $OUT/log.txt")


def font_files() -> list[Path]:
    """The font files warref's own decks (Woolly, Namikopy, the standard backs) are drawn in."""
    return sorted({Path(getattr(st, field)) for st in own.STYLES
                   for field in ("index_font", "big_font", "word_font")})


def bundle(out: Path = BUNDLE, wheels: bool = True) -> Path:
    """Write the bundle the GPU call carries (see the module's docstring) and return its folder."""
    out = Path(out)
    shutil.rmtree(out, ignore_errors=True)
    rootfs = out / "root"                                 # the files at their places on this machine
    for font in font_files():
        if not font.exists():
            raise FileNotFoundError(f"{font} is missing: make system-deps installs warref's fonts")
        _copy(font, rootfs / font.relative_to("/"))
    patterns, photos = Path(clutter.PATTERNS), Path(clutter.PHOTOS)
    clutter.pictures()                                    # ClutterMissing, with the apt line, if they are not here
    for path in sorted(patterns.rglob("*.pat")):
        _copy(path, rootfs / path.absolute().relative_to("/"))
    for path in sorted(p for p in photos.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        target = (rootfs / path.absolute().relative_to("/")).with_suffix(".jpg")
        target.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(target), clutter._shrunk(image), [cv2.IMWRITE_JPEG_QUALITY, PHOTO_QUALITY])
    if wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", GPU_PYTHON, "--implementation", "cp", "-d", str(out / "whl"), *WHEELS],
                       check=True)
    return out


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def size_mb(paths: list[Path]) -> float:
    """Megabytes (MiB) of the files under ``paths``."""
    total = 0
    for path in map(Path, paths):
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        total += sum(f.stat().st_size for f in files)
    return total / 2 ** 20


def tracked_mb() -> float:
    """Megabytes of the files git tracks: the part of the working tree every call takes along."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return size_mb([ROOT / n for n in names.decode().split("\0") if n and (ROOT / n).is_file()])


def install_files(source: Path = BUNDLE / "root", target: Path = Path("/")) -> int:
    """Put the bundle's fonts and pictures where the code looks for them (the places they have
    here); a file already there is kept. Returns the files put."""
    put = 0
    for path in sorted(p for p in Path(source).rglob("*") if p.is_file()):
        where = Path(target) / path.relative_to(source)
        if not where.exists():
            _copy(path, where)
            put += 1
    return put


def read_results(path: Path) -> dict[str, list]:
    """ultralytics' results.csv as polars would give it to the checkpoint, without polars (the GPU
    machine has none, and its 50 MB wheel would not fit in a call)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    return {key.strip(): [_number(r[key]) for r in rows] for key in (rows[0] if rows else {})}


def _number(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def keeper(out: Path):
    """An ``on_model_save`` callback: the best weights so far, optimizer stripped (about 5.5 MB,
    under what a call brings back), and results.csv, copied to ``out`` after every epoch."""
    def keep(trainer) -> None:
        # ultralytics: only in the training environment (on the GPU machine, the bundle's wheels)
        from ultralytics.utils.torch_utils import strip_optimizer
        if Path(trainer.best).exists():
            strip_optimizer(trainer.best, s=str(Path(out) / "best.pt"))
        if Path(trainer.csv).exists():
            shutil.copyfile(trainer.csv, Path(out) / "results.csv")
    return keep


def loader_workers(workers: int, batch: int, imgsz: int = 320, shm: Path = SHM) -> int:
    """Loading workers the shared memory can hold: each keeps two batches of images (uint8) there,
    and a container's /dev/shm can be as small as 64 MB, where 14 workers die of a bus error mid-run.
    Fewer workers (down to none: loading in the training process) are slower but finish."""
    try:
        free = shutil.disk_usage(shm).free
    except OSError:
        return 0
    return max(0, min(workers, int(free // 2 // (2 * batch * 3 * imgsz * imgsz))))


def job(out: Path, minutes: float, work: Path = Path("/tmp/warref-gpu"), recipe=RECIPE, device: str = "0",
        batch: int = BATCH, workers: int = WORKERS, jobs: int = 0, install: bool = True) -> Path:
    """The GPU machine's part: scenes, set, training until ``minutes`` after the start; returns the
    best weights' path in ``out``."""
    start = time.monotonic()
    out, work = Path(out), Path(work)
    out.mkdir(parents=True, exist_ok=True)
    if install:
        print(f"fonts and pictures put in place: {install_files()}", flush=True)
    jobs = jobs or os.cpu_count() or 1
    sources, counts = [], []
    for deck, scenes, seed, options in recipe:
        name = "-".join([deck, str(seed), *sorted(k for k, v in options.items() if v)])
        began = time.monotonic()
        manifest = generate(deck, scenes, work / name, seed, jobs=jobs, **options)
        print(f"{scenes} {deck} scenes {options or ''} in {time.monotonic() - began:.0f} s", flush=True)
        sources.append(work / name)
        counts.append(manifest["train"])
    data = prepare(sources, work / "detector", per_source=counts, val_per_source=VAL_SCENES, jobs=jobs, quiet=True)
    print(f"set built at {time.monotonic() - start:.0f} s", flush=True)
    if device != "cpu":
        fitting = loader_workers(workers, batch)
        if fitting < workers:
            subprocess.run(["mount", "-o", "remount,size=50%", str(SHM)], capture_output=True)
            fitting = loader_workers(workers, batch)
        print(f"loading workers: {fitting} of {workers} ({SHM}: "
              f"{shutil.disk_usage(SHM).free / 2 ** 30 if SHM.exists() else 0:.1f} GiB free)", flush=True)
        workers = fitting
    plots = importlib.util.find_spec("polars") is not None
    if not plots:                           # ultralytics reads its results.csv with polars, and plots with it
        from ultralytics.engine.trainer import BaseTrainer    # only in the training environment
        BaseTrainer.read_results_csv = lambda self: read_results(self.csv)
    # ultralytics counts its time from after its set-up (caching the images, about half a minute
    # there), and validates the best epoch once more after it: 90 s are kept for both
    hours = (minutes * 60 - (time.monotonic() - start) - SPARE_S) / 3600
    if hours <= 0:
        raise RuntimeError(f"no time left to train after {time.monotonic() - start:.0f} s of scenes")
    best = train(data, work / "runs", hours=hours, start_from=ROOT / "models" / "detector.onnx", name="gpu",
                 device=device, batch=batch, workers=workers, plots=plots, export=False,
                 callbacks={"on_model_save": keeper(out)})
    kept = out / "best.pt"
    print(f"done at {time.monotonic() - start:.0f} s: {kept if kept.exists() else best}", flush=True)
    return kept if kept.exists() else best


def finish(weights: Path, models: Path) -> Path:
    """Export ``weights`` (a .pt) to ``models``/detector.onnx, beside links to every other installed
    model, and return the folder: a candidate for ``warref eval --models``."""
    models = Path(models)
    models.mkdir(parents=True, exist_ok=True)
    for f in (ROOT / "models").iterdir():
        if (f.suffix in (".onnx", ".json") and not f.name.startswith("detector")
                and not (models / f.name).exists()):
            os.symlink(f.resolve(), models / f.name)
    export_onnx(weights, models)
    return models


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.train.gpu", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    b = sub.add_parser("bundle", help="here: write .gpu/ and print the call to make")
    b.add_argument("--minutes", type=float, default=9.0, help="the job's time, scenes included (default 9)")
    j = sub.add_parser("job", help="there: scenes, set and training; the best weights land in --out")
    j.add_argument("--out", required=True, help="where the weights and results go ($OUT there)")
    j.add_argument("--minutes", type=float, default=9.0)
    j.add_argument("--device", default="0", help="a CUDA device, or cpu to try the job here")
    j.add_argument("--batch", type=int, default=BATCH)
    j.add_argument("--workers", type=int, default=WORKERS)
    j.add_argument("--scale", type=float, default=1.0, help="a share of RECIPE's scenes (to try the job here)")
    j.add_argument("--work", default="/tmp/warref-gpu", help="where the scenes and the run are written")
    j.add_argument("--no-install", action="store_true", help="leave / alone (the fonts and pictures are here)")
    f = sub.add_parser("finish", help="here: export the weights a call brought back to a candidate models folder")
    f.add_argument("weights")
    f.add_argument("--models", required=True, help="the candidate folder to write")
    args = parser.parse_args(argv)
    if args.step == "bundle":
        where = bundle()
        total = tracked_mb() + size_mb([ROOT / c for c in CARRY])
        print(f"{where}: {size_mb([where]):.1f} MiB; with the tracked files and the art, {total:.1f} of "
              f"{LIMIT_MB} MiB a call takes")
        if total > LIMIT_MB:
            print("too big for one call", file=sys.stderr)
            return 1
        print(f"run (timeout_s 600), carry {CARRY}:\n{COMMAND.format(minutes=args.minutes)}")
    elif args.step == "job":
        recipe = tuple((d, max(20, round(n * args.scale)), s, o) for d, n, s, o in RECIPE)
        job(Path(args.out), args.minutes, Path(args.work), recipe, args.device, args.batch, args.workers,
            install=not args.no_install)
    else:
        print(finish(Path(args.weights), Path(args.models)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
