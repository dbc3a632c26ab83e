"""The card detector: one YOLO oriented-box model (face-up card, back) for every deck.

    warref train detector [--sources datasets/standard datasets/woolly ...] [--hours 1.2]

``prepare`` turns synthetic scene datasets into the detector's training set: each scene's frame
scaled to 640 wide (half of them stretched to 640x640, as exported photos are), plus a zoomed window
around one of its cards (sometimes stretched to a square too), so the detector sees cards from 20
pixels to the whole frame and cards cut by the frame's edge. Labels of the zoomed window are the card's visible polygon clipped to the
window. ``train`` trains yolo11n-obb from scratch with ultralytics (offline, both cores), resumable,
and exports models/detector.onnx.
"""
from __future__ import annotations

import json
import math
import shutil
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from .offline import configure

FULL_WIDTH = 640            # the full frame is stored at this width
ZOOM_SIZE = 640             # the zoomed window's long side
MIN_KEEP = 0.25             # a clipped box keeps a label if this share of it is left in the window
STRETCH = 0.0               # default share of full frames stored stretched to a square, as exports are (phone/
                            # and handheld/ are 4:3 frames shown at 640x640): `--stretch 0.5` was judged once and
                            # not kept (journal 2026-12-07-detector-stretch), so it is off unless asked for
CLASSES = {0: "card", 1: "back"}
CHECKED, BOX_SLACK, SCORE_SLACK = 4, 0.05, 1e-4   # from_onnx's check: images, pixels, score
BACKBONE = 11               # yolo11n-obb's backbone is its layers 0-10 (`--freeze 11` keeps it as it is)
SAMPLE = 64                 # training images whose statistics set the batch norms of a detector rebuilt from its .onnx


def _labels(path: Path) -> list[tuple[int, np.ndarray]]:
    out = []
    if path.exists():
        for line in path.read_text().split("\n"):
            if line.strip():
                v = line.split()
                out.append((int(v[0]), np.array(v[1:9], np.float32).reshape(4, 2)))
    return out


def _write_labels(path: Path, labels: list[tuple[int, np.ndarray]]):
    path.write_text("".join(f"{c} " + " ".join(f"{v:.6f}" for v in np.clip(p, 0, 1).ravel()) + "\n"
                            for c, p in labels))


def zoom(image: np.ndarray, labels: list[tuple[int, np.ndarray]], rng: np.random.Generator
         ) -> tuple[np.ndarray, list[tuple[int, np.ndarray]]]:
    """A window around one labelled box, resized; labels clipped to it (pixel polygons in, normalised out)."""
    H, W = image.shape[:2]
    polys = [(c, p * (W, H)) for c, p in labels]
    if polys:
        _, target = polys[rng.integers(len(polys))]
        cx, cy = target.mean(0) + rng.normal(0, 0.15, 2) * np.ptp(target, 0)
        side = max(np.ptp(target, 0)) * rng.uniform(1.15, 5.0)
    else:
        cx, cy, side = W / 2, H / 2, H * 0.6
    aspect = rng.uniform(0.7, 1.4)
    w, h = min(W, side * np.sqrt(aspect)), min(H, side / np.sqrt(aspect))
    x0 = float(np.clip(cx - w / 2, 0, W - w))
    y0 = float(np.clip(cy - h / 2, 0, H - h))
    if rng.random() < 0.5:                   # stretched to a square, as the phone exports are
        out_w = out_h = ZOOM_SIZE
    else:
        s = ZOOM_SIZE / max(w, h)
        out_w, out_h = round(w * s), round(h * s)
    M = np.array([[out_w / w, 0, -x0 * out_w / w], [0, out_h / h, -y0 * out_h / h]], np.float32)
    crop = cv2.warpAffine(image, M, (out_w, out_h), flags=cv2.INTER_AREA if out_w < w else cv2.INTER_LINEAR)
    window = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    kept = []
    for c, p in polys:
        q = (p @ M[:, :2].T + M[:, 2]).astype(np.float32)
        area = cv2.contourArea(q)
        if area <= 0:
            continue
        inter, clipped = cv2.intersectConvexConvex(q, window)
        if clipped is None or inter < MIN_KEEP * area or inter < 150:
            continue
        box = cv2.boxPoints(cv2.minAreaRect(clipped.reshape(-1, 2)))
        kept.append((c, box / (out_w, out_h)))
    return crop, kept


def _prepare_one(job: tuple[Path, str, Path, Path, int, int, float]) -> None:
    """One scene: the frame scaled to FULL_WIDTH (stretched to a square a share ``stretch`` of the time)
    and one zoomed window, each with its labels (normalised, so a stretch leaves them as they are)."""
    source, split, f, out, seed, index, stretch = job
    rng = np.random.default_rng([seed, index])
    image = cv2.imread(str(f))
    labels = _labels(source / "labels" / split / (f.stem + ".txt"))
    stem = f"{source.name}-{f.stem}"
    square = rng.random() < stretch
    small = cv2.resize(image, (FULL_WIDTH, FULL_WIDTH if square else round(image.shape[0] * FULL_WIDTH / image.shape[1])),
                       interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if square:                   # a box stretched is no longer a rectangle: the rectangle around it
        size = np.array(small.shape[1::-1], np.float32)
        labels = [(c, cv2.boxPoints(cv2.minAreaRect(p * size)) / size) for c, p in labels]
    _write_labels(out / "labels" / split / f"{stem}.txt", labels)
    crop, kept = zoom(image, labels, rng)
    cv2.imwrite(str(out / "images" / split / f"{stem}z.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 90])
    _write_labels(out / "labels" / split / f"{stem}z.txt", kept)


def prepare(sources: list[Path], out: Path, per_source: int | Sequence[int] = 5000, val_per_source: int = 100,
            seed: int = 1, quiet: bool = False, jobs: int = 1, stretch: float = STRETCH) -> Path:
    """Build the detector's dataset in ``out`` and return its data.yaml.

    ``per_source``: the training scenes taken from each source, one number for all or one per source
    (a small new set beside big old ones). ``stretch``: the share of full frames stored stretched square.

    ``jobs`` worker processes; each scene's zoom is drawn from a generator seeded with [seed, its
    number], so the set is the same whatever the number of jobs."""
    counts = [per_source] * len(sources) if isinstance(per_source, int) else list(per_source)
    if len(counts) != len(sources):
        raise ValueError(f"{len(counts)} scene counts for {len(sources)} sources: give one, or one per source")
    out = Path(out).resolve()
    for split in ("train", "val"):
        for sub in ("images", "labels"):
            shutil.rmtree(out / sub / split, ignore_errors=True)
            (out / sub / split).mkdir(parents=True)
    work = []
    for source, take in zip(map(Path, sources), counts):
        for split, n in (("train", take), ("val", val_per_source)):
            files = sorted((source / "images" / split).glob("*.jpg"))[:n]
            work += [(source, split, f, out, seed, len(work) + i, stretch) for i, f in enumerate(files)]
    bar = dict(total=len(work), desc="detector set", disable=quiet)
    if jobs <= 1:
        for job in tqdm(work, **bar):
            _prepare_one(job)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            for _ in tqdm(pool.map(_prepare_one, work, chunksize=16), **bar):
                pass
    counts = {split: 2 * sum(1 for job in work if job[1] == split) for split in ("train", "val")}
    data = out / "data.yaml"
    data.write_text(f"# warref detector set built from {', '.join(str(s) for s in sources)}\n"
                    f"path: {out}\ntrain: images/train\nval: images/val\nnames:\n"
                    + "".join(f"  {k}: {v}\n" for k, v in CLASSES.items()))
    (out / "manifest.json").write_text(json.dumps({"sources": [str(s) for s in sources], "seed": seed,
                                                    "stretch": stretch, "images": counts}, indent=1))
    return data


def _sample(data: Path, imgsz: int, count: int = SAMPLE) -> np.ndarray:
    """``count`` training images of a prepared set, letterboxed to ``imgsz`` as ultralytics feeds
    them (RGB, 0..1, grey 114 padding): the statistics ``from_onnx`` sets the batch norms to."""
    import yaml      # pyyaml: a dependency of ultralytics (the training environment), not of warref

    meta = yaml.safe_load(Path(data).read_text())
    files = sorted((Path(meta["path"]) / meta["train"]).glob("*.jpg"))
    if not files:
        raise ValueError(f"{data}: no training images to set the batch norms from")
    rng = np.random.default_rng(0)
    out = []
    for f in rng.choice(files, min(count, len(files)), replace=False):
        image = cv2.imread(str(f))
        h, w = image.shape[:2]
        s = imgsz / max(h, w)
        small = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
        box = np.full((imgsz, imgsz, 3), 114, np.uint8)
        y, x = (imgsz - small.shape[0]) // 2, (imgsz - small.shape[1]) // 2
        box[y:y + small.shape[0], x:x + small.shape[1]] = small
        out.append(cv2.cvtColor(box, cv2.COLOR_BGR2RGB))
    return np.stack(out).transpose(0, 3, 1, 2).astype(np.float32) / 255


def from_onnx(path: Path, target: Path, sample: np.ndarray, model: str = "yolo11n-obb.yaml") -> Path:
    """Rebuild an exported detector (``models/detector.onnx``) as ultralytics weights to go on
    training from, saved at ``target`` (a .pt): a fresh checkout has the committed .onnx but not the
    git-ignored runs. The export folded each convolution's batch norm into it (weights W, bias b);
    here each norm is set to give back W x + b exactly when evaluated, with the statistics of W x
    on ``sample`` (training images as the trainer feeds them: mean m, variance v; scale sqrt(v +
    eps), shift m + b), so it also gives nearly that on a training batch. The head's plain
    convolutions take the .onnx's weights as they are (``reader_net.from_onnx`` does the same for
    a reader)."""
    # torch, ultralytics: only in the training environment (.venv-train); onnx: heavy (about 0.9 s)
    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import OBBModel

    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in onnx.load(str(path)).graph.initializer}
    net = OBBModel(model, nc=len(CLASSES), verbose=False)
    convs = [(name, m) for name, m in net.named_modules() if isinstance(m, Conv)]
    taken = set()
    for name, m in convs:
        w, b = weights.get(f"{name}.conv.weight"), weights.get(f"{name}.conv.bias")
        if w is None or b is None or w.shape != m.conv.weight.shape:
            raise ValueError(f"{path} is not a detector of this network's shape and classes ({name})")
        m.conv.weight.data = w
        m.bn.running_mean.zero_()                   # for now exactly W x + b when evaluated
        m.bn.running_var.fill_(1 - m.bn.eps)
        m.bn.weight.data.fill_(1.0)
        m.bn.bias.data = b.clone()
        taken |= {f"{name}.conv.weight", f"{name}.conv.bias"}
    for name, p in net.named_parameters():
        if ".bn." in name or name in taken:
            continue
        if name not in weights or weights[name].shape != p.shape:
            raise ValueError(f"{path} is not a detector of this network's shape and classes ({name})")
        p.data = weights[name].clone()
    stats = {}

    def keep(name):
        def hook(_, __, z):
            stats[name] = (z.mean((0, 2, 3)), z.var((0, 2, 3), unbiased=False))
        return hook
    hooks = [m.conv.register_forward_hook(keep(name)) for name, m in convs]
    net.eval()
    with torch.no_grad():
        net(torch.from_numpy(sample))
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for name, m in convs:
            mean, var = stats[name]
            m.bn.running_mean.copy_(mean)
            m.bn.running_var.copy_(var)
            m.bn.bias.data += mean
            m.bn.weight.data = (var + m.bn.eps).sqrt()
    check(net, path, sample[:CHECKED])
    net.names = dict(CLASSES)
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": net, "train_args": {"task": "obb", "imgsz": int(sample.shape[-1])}, "epoch": -1,
                "from_onnx": str(path)}, target)
    return target


def check(net, path: Path, images: np.ndarray) -> None:
    """Raise unless ``net`` (evaluated) gives the exported detector's outputs on ``images``: class
    scores within ``SCORE_SLACK``, boxes within ``BOX_SLACK`` pixels, so a rebuilt detector that
    does not see what the installed one sees never gets trained on."""
    # torch: only in the training environment (.venv-train); onnxruntime (about 35 ms): only for this check
    import onnxruntime as ort
    import torch

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    net.eval()
    for image in images:
        x = image[None]
        with torch.no_grad():
            ours = net(torch.from_numpy(x))[0].numpy()
        theirs = session.run(None, {name: x})[0]
        boxes, scores = np.abs(ours[:, :4] - theirs[:, :4]).max(), np.abs(ours[:, 4:] - theirs[:, 4:]).max()
        if boxes > BOX_SLACK or scores > SCORE_SLACK:
            raise ValueError(f"the detector rebuilt from {path} does not give its outputs (boxes off by up to "
                             f"{boxes:.3g} pixels, scores by {scores:.3g})")


def train(data: Path, out: Path, hours: float = 1.2, imgsz: int = 320, batch: int = 16,
          model: str = "yolo11n-obb.yaml", resume: bool = False, seed: int = 1, epochs: int = 100,
          start_from: Path | None = None, name: str = "train", device: str = "cpu", workers: int = 2,
          lr: float | None = None, plots: bool = True, export: bool = True,
          callbacks: dict | None = None, freeze_norms: bool = False, lr_final: float | None = None,
          freeze: int = 0) -> Path:
    """Train (or resume) the detector with a time budget; export ONNX; return its path.

    ``start_from``: weights of an earlier run (a .pt made here) to go on learning from, in a new run
    ``name``, with a fresh schedule; nothing is downloaded. ``device``: "cpu" or a CUDA device ("0");
    on a GPU the images are cached in memory and mixed precision stays off (ultralytics' check for
    it would download a model). ``lr``: AdamW from this learning rate (falling linearly to 1% of it)
    instead of ultralytics' own choice (AdamW at 0.001667 for this model on a set this size): a
    small one goes on from good weights without first unlearning them. ``plots``: ultralytics'
    pictures of the labels and the results (they need polars). ``export``: False returns the run's
    best .pt instead of exporting it (the GPU machine has no onnxslim; see ``gpu``). ``callbacks``:
    ultralytics events (such as "on_model_save") and a function of the trainer for each.
    ``freeze_norms``: every batch norm kept as it is (``keep_norms``), for a fine-tune on the CPU.
    ``lr_final``: where ``lr`` falls to by the last epoch (default 1% of it). ``freeze``: the first
    ``freeze`` layers learn nothing (``BACKBONE``: the backbone, which changes less of what it knew).
    Whatever the batch, ultralytics accumulates gradients to its nominal batch of 64 and trains an
    exponential moving average of the weights (EMA), which is what it saves and exports."""
    configure()
    from ultralytics import YOLO    # the training environment only, and after configure() sets its environment

    out = Path(out).resolve()
    last = out / name / "weights" / "last.pt"
    if start_from and Path(start_from).suffix == ".onnx" and not (resume and last.exists()):
        start_from = from_onnx(Path(start_from), out / name / "from-onnx.pt", _sample(data, imgsz))
    resuming = resume and last.exists()
    settings = out / name / "warref.json"     # what ultralytics' checkpoint does not keep
    if resuming:
        settle_epochs(last)
        if settings.exists():
            freeze_norms = freeze_norms or json.loads(settings.read_text())["freeze_norms"]
    else:
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"freeze_norms": freeze_norms}))
    net = YOLO(str(last) if resuming else str(start_from) if start_from else model)
    for event, call in (callbacks or {}).items():
        net.add_callback(event, call)
    if freeze_norms:
        net.add_callback("on_train_batch_start", keep_norms)
    if resuming:
        net.train(resume=True)
    else:
        net.train(data=str(data), epochs=epochs, time=hours, imgsz=imgsz, batch=batch, seed=seed,
                  workers=workers, project=str(out), name=name, exist_ok=True, plots=plots, verbose=False,
                  device=device, amp=False, cache="ram" if device != "cpu" else False,
                  close_mosaic=1, patience=1000, fliplr=0.5, degrees=0.0, val=True,
                  **({"warmup_epochs": 0} if start_from else {}),
                  **({"optimizer": "AdamW", "lr0": lr} if lr else {}),
                  **({"lrf": lr_final / lr} if lr and lr_final else {}),
                  **({"freeze": freeze} if freeze else {}))
    best = out / name / "weights" / "best.pt"
    if not export:
        return best if best.exists() else last
    return export_onnx(best if best.exists() else last, out / name, imgsz)


def settle_epochs(last: Path) -> None:
    """Before resuming a run given hours rather than epochs: write into ``last`` (its checkpoint) the
    number of epochs the run had settled on, and no hours. ultralytics saves an epoch's checkpoint
    before it turns the hours into epochs, so the checkpoint says 100; resumed as it is, the next epoch
    would train with mosaic at a rate meant for 100 epochs, then count the hours again from the restart."""
    import torch    # only in the training environment (.venv-train)

    ckpt = torch.load(last, map_location="cpu", weights_only=False)
    args = ckpt.get("train_args", {})
    results = last.parent.parent / "results.csv"
    if not args.get("time") or not results.exists():
        return
    rows = results.read_text().strip().splitlines()[1:]
    if not rows:
        return
    seconds = float(rows[-1].split(",")[1])        # the "time" column: seconds since the run began
    args["epochs"] = math.ceil(args["time"] * 3600 / (seconds / len(rows)))   # as ultralytics counts them
    args["time"] = None
    ckpt["train_args"] = args
    torch.save(ckpt, last)


def keep_norms(trainer) -> None:
    """An ``on_train_batch_start`` callback: every batch norm of the model being trained normalises
    with its running statistics and learns nothing (ultralytics puts the model back in training mode
    each epoch, so it is done before every batch). On the CPU a batch of 16 makes noisy statistics:
    a fine-tune that updated them lost synthetic validation in its last epoch (without mosaic) and
    more real ranks than one that kept them (models/journal/2026-12-01-detector-runs.md, "Batch norms kept as they are")."""
    import torch.nn as nn      # only in the training environment (.venv-train)

    for m in trainer.model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
            for p in m.parameters():
                p.requires_grad_(False)


def export_onnx(weights: Path, out: Path, imgsz: int = 320) -> Path:
    """Export ``weights`` (a .pt) to ``out``/detector.onnx with its detector.json; return the .onnx.
    ultralytics writes the export beside the weights, so a copy of them is exported from ``out``."""
    configure()
    from ultralytics import YOLO    # the training environment only, and after configure() sets its environment

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    copy = out / "exporting.pt"
    shutil.copyfile(weights, copy)
    onnx = Path(YOLO(str(copy)).export(format="onnx", imgsz=imgsz, simplify=True, opset=17))
    copy.unlink()
    target = out / "detector.onnx"
    onnx.replace(target)
    (out / "detector.json").write_text(json.dumps({"imgsz": imgsz, "names": CLASSES, "task": "obb"}, indent=1))
    return target
