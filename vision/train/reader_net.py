"""Train a deck's index reader: a small CNN on index views, held in memory, exported to ONNX.

    .venv-train/bin/python -m vision.train.reader_net DATASET OUT [--epochs 30] [--imgsz 64]

DATASET is the classification layout reader_set/index_fonts write (DATASET/{train,val}/CODE/*.jpg).
Why not ultralytics' classifier here: measured on the Woolly views, yolo11n-cls from scratch reached
18% validation accuracy after 10 epochs (about 3 minutes, one core), its loader decoding and
augmenting every JPEG again each epoch and its colour jitter (saturation +-70%) wiping out the
colour that tells a yellow 8 from an orange one. The views are small and few enough to sit in memory
as one tensor, so this loop augments on tensors (shift, rotation, scale, stretch, slant,
brightness, contrast, blur, noise; never a mirror image, never a hue change) and runs several
times more steps per second.
The detector is still trained with ultralytics (vision/train/detector.py).
"""
from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from .offline import train_threads


def load_split(folder: Path, names: list[str] | None, imgsz: int):
    import torch      # only in the training environment (.venv-train)

    names = names or sorted(p.name for p in folder.iterdir() if p.is_dir())
    images, labels = [], []
    for i, name in enumerate(names):
        for f in sorted((folder / name).glob("*.jpg")) if (folder / name).is_dir() else []:
            bgr = cv2.imread(str(f))
            images.append(cv2.resize(bgr, (imgsz, imgsz), interpolation=cv2.INTER_AREA)[..., ::-1])
            labels.append(i)
    x = torch.from_numpy(np.stack(images).transpose(0, 3, 1, 2).copy())          # uint8 N x 3 x S x S, RGB
    return x, torch.tensor(labels), names


def network(classes: int):
    """About 0.6 M weights; the first two convolutions halve the size each (most work at 16 px and less)."""
    from torch import nn      # only in the training environment (.venv-train)

    def conv(a, b, stride=1):
        return [nn.Conv2d(a, b, 3, stride, 1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True)]
    return nn.Sequential(*conv(3, 32, 2), *conv(32, 48, 2), *conv(48, 64), *conv(64, 64), nn.MaxPool2d(2),
                         *conv(64, 128), *conv(128, 128), nn.MaxPool2d(2), *conv(128, 192),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(192, classes))


class Softmaxed:
    """Wraps the network so the exported model outputs probabilities, as the run time expects."""

    def __new__(cls, net):
        from torch import nn      # only in the training environment (.venv-train)

        class _M(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = net

            def forward(self, x):
                return self.net(x).softmax(1)
        return _M()


GREY = 0.15             # share of training views turned grey (none for a deck whose colour is part of the card)
ONE_CORNER = 0.5        # share of views made of one corner twice (the run time reads each corner alone too)
LOW_RES = 0.2           # share of views brought down to 16-40 pixels and back up (far or small cards)
TURN = 24               # degrees of turn, whole range
SCALE = 0.2             # size change, whole range (1 +- SCALE / 2)
STRETCH = 0.6           # width against height change, whole range: a corner cut from a box a little off
                        # or from a photo stretched to a square (phone exports)
SHEAR = 0.4             # slant, whole range (a card seen in perspective)
SHIFT = 0.26            # shift, share of the view, whole range


def augment(x, generator, grey: float = GREY, one_corner: float = ONE_CORNER):
    """A batch (float 0..1) moved, turned, scaled, relit, blurred and noised a little; colours kept,
    except that a share ``grey`` of views lose their colour altogether. A share ``one_corner`` shows one
    of the two corners twice (the left half is the top-left corner, the right half the bottom-right
    one; none for a face reader, whose views are whole cards)."""
    # torch: only in the training environment (.venv-train)
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    one = torch.rand(n, generator=generator) < one_corner
    if one.any():
        half = x.shape[3] // 2
        right = torch.rand(n, generator=generator) < 0.5
        left_twice, right_twice = one & ~right, one & right
        x = x.clone()
        x[left_twice, :, :, half:] = x[left_twice, :, :, :half]
        x[right_twice, :, :, :half] = x[right_twice, :, :, half:]
    angle = (torch.rand(n, generator=generator) - 0.5) * math.radians(TURN)
    scale = 1 + (torch.rand(n, generator=generator) - 0.5) * SCALE
    stretch = 1 + (torch.rand(n, generator=generator) - 0.5) * STRETCH
    shear = (torch.rand(n, generator=generator) - 0.5) * SHEAR
    shift = (torch.rand(n, 2, generator=generator) - 0.5) * SHIFT
    sx, sy = 1 / (scale * stretch), stretch / scale
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.stack([torch.stack([cos * sx, -sin * sy + cos * shear, shift[:, 0]], 1),
                         torch.stack([sin * sx, cos * sy + sin * shear, shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    gain = 0.6 + 0.6 * torch.rand(n, 1, 1, 1, generator=generator)
    bias = (torch.rand(n, 1, 1, 1, generator=generator) - 0.5) * 0.2
    mean = x.mean((1, 2, 3), keepdim=True)
    contrast = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=generator)
    x = (x - mean) * contrast + mean
    x = x * gain + bias
    x = x * (1 + (torch.rand(n, 3, 1, 1, generator=generator) - 0.5) * 0.1)        # slight white balance
    bw = torch.rand(n, generator=generator) < grey
    if bw.any():                        # black-and-white photos: the suit must be read from its shape
        x[bw] = x[bw].mean(1, keepdim=True).expand(-1, 3, -1, -1)
    blur = torch.rand(n, generator=generator) < 0.3
    if blur.any():
        k = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0]) / 16
        kernel = (k[:, None] * k[None, :]).expand(3, 1, 5, 5)
        x[blur] = F.conv2d(F.pad(x[blur], (2, 2, 2, 2), mode="replicate"), kernel, groups=3)
    low = torch.rand(n, generator=generator) < LOW_RES
    if low.any():
        size = int(16 + torch.randint(0, 25, (1,), generator=generator).item())
        small = F.interpolate(x[low], size=(size, size), mode="area")
        x[low] = F.interpolate(small, size=x.shape[2:], mode="bilinear", align_corners=False)
    x = x + torch.randn(x.shape, generator=generator) * 0.03 * torch.rand(n, 1, 1, 1, generator=generator)
    return x.clamp(0, 1)


def train(dataset: Path, out: Path, epochs: int = 30, imgsz: int = 64, batch: int = 128, lr: float = 3e-3,
          seed: int = 1, threads: int | None = None, quiet: bool = False, resume: bool = False,
          start_from: Path | None = None, grey: float = GREY, one_corner: float = ONE_CORNER) -> Path:
    """Train (or, with ``resume``, carry on from OUT/checkpoint.pt), export OUT/reader.onnx and .json.
    ``start_from``: an earlier run's best.pt to start from (every layer whose shape still fits, so a
    class can be added). ``grey``, ``one_corner``: the shares of views shown without colour and of
    views showing one corner twice (``augment``; 0 for a face reader)."""
    # torch: only in the training environment (.venv-train)
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads or train_threads())
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    dataset, out = Path(dataset), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    xt, yt, names = load_split(dataset / "train", None, imgsz)
    xv, yv, _ = load_split(dataset / "val", names, imgsz)
    net = network(len(names))
    if start_from and Path(start_from).suffix == ".onnx":
        from_onnx(net, Path(start_from), xt[torch.randperm(len(xt), generator=g)[:1024]].float() / 255)
    elif start_from:
        earlier = torch.load(start_from)
        mine = net.state_dict()
        net.load_state_dict({k: v for k, v in earlier.items() if k in mine and mine[k].shape == v.shape}, strict=False)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    steps = epochs * math.ceil(len(xt) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    history, best, start, first = [], -1.0, time.time(), 1
    if resume and (out / "checkpoint.pt").exists():
        state = torch.load(out / "checkpoint.pt", weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        history, best, first = state["history"], state["best"], state["epoch"] + 1
        g.set_state(state["generator"])
    for epoch in range(first, epochs + 1):
        net.train()
        order = torch.randperm(len(xt), generator=g)
        losses = []
        bar = tqdm(range(0, len(xt), batch), desc=f"epoch {epoch}/{epochs}", disable=quiet, leave=False)
        for i in bar:
            idx = order[i:i + batch]
            xb = augment(xt[idx].float() / 255, g, grey, one_corner)
            loss = F.cross_entropy(net(xb), yt[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        net.eval()
        with torch.no_grad():
            pred = torch.cat([net(xv[i:i + 512].float() / 255).argmax(1) for i in range(0, len(xv), 512)])
        acc = (pred == yv).float().mean().item() if len(yv) else 0.0
        history.append({"epoch": epoch, "loss": float(np.mean(losses)), "val_accuracy": acc,
                        "seconds": round(time.time() - start, 1)})
        print(f"epoch {epoch}: loss {np.mean(losses):.3f}  val accuracy {acc:.4f}  ({time.time() - start:.0f} s)",
              flush=True)
        if acc >= best:
            best = acc
            torch.save(net.state_dict(), out / "best.pt")
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch,
                    "history": history, "best": best, "generator": g.get_state()}, out / "checkpoint.pt")
    net.load_state_dict(torch.load(out / "best.pt"))
    target = export(net, names, imgsz, out)
    (out / "history.json").write_text(json.dumps({"train": len(xt), "val": len(xv), "epochs": history,
                                                  "best_val_accuracy": best}, indent=1))
    _plot(history, out / "curves.png")
    return target


def from_onnx(net, path: Path, sample) -> None:
    """Set ``net`` (``network``) to an exported reader's weights, so that a fresh checkout, which has
    the committed .onnx files but not the git-ignored training runs, can go on training one.
    The export folded each batch norm into its convolution (weights W, bias b), so each norm is
    set to give back W x + b on ``sample`` (training views, 0..1): its statistics are the ones
    of W x on the sample (mean m, variance v), its scale sqrt(v + eps) and its shift m + b, which
    gives exactly W x + b when the network is evaluated and nearly that on a training batch."""
    # torch: only in the training environment (.venv-train); onnx: heavy (about 0.9 s), only to go on from
    # an exported reader
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(str(path)).graph
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    layers = list(net)
    linear = next(m for m in layers if isinstance(m, nn.Linear))
    name = f"net.{layers.index(linear)}"               # the export keeps the classifier's own names
    if len(convs) != sum(isinstance(m, nn.Conv2d) for m in layers) or \
            weights[f"{name}.weight"].shape != linear.weight.shape:
        raise ValueError(f"{path} is not a reader of this network's shape and classes")
    fused = iter((weights[n.input[1]], weights[n.input[2]]) for n in convs)
    linear.weight.data, linear.bias.data = weights[f"{name}.weight"], weights[f"{name}.bias"]
    x = sample
    with torch.no_grad():
        for i, m in enumerate(layers):
            if isinstance(m, nn.Flatten):
                break
            if isinstance(m, nn.Conv2d):
                w, b = next(fused)
                m.weight.data = w
                norm = layers[i + 1]
                z = m(x)
                mean, var = z.mean((0, 2, 3)), z.var((0, 2, 3), unbiased=False)
                norm.running_mean.copy_(mean)
                norm.running_var.copy_(var)
                norm.weight.data = (var + norm.eps).sqrt()
                norm.bias.data = mean + b
                x = z
            else:
                x = m.eval()(x)


def export(net, names: list[str], imgsz: int, out: Path) -> Path:
    """OUT/reader.onnx (probabilities out, any batch size) and OUT/reader.json (input size, class names)."""
    import torch      # only in the training environment (.venv-train)

    net.eval()
    target = Path(out) / "reader.onnx"
    torch.onnx.export(Softmaxed(net), torch.zeros(1, 3, imgsz, imgsz), str(target), input_names=["images"],
                      output_names=["probabilities"], dynamic_axes={"images": {0: "batch"}, "probabilities": {0: "batch"}},
                      opset_version=17, dynamo=False)
    # trained on single-corner views too (ONE_CORNER), so the run time reads each corner alone
    (Path(out) / "reader.json").write_text(json.dumps({"imgsz": imgsz, "names": {i: n for i, n in enumerate(names)},
                                                       "views": "corners" if ONE_CORNER else "both",
                                                       "trainer": "vision.train.reader_net"}, indent=1))
    return target


def export_checkpoint(dataset: Path, out: Path, imgsz: int = 64) -> Path:
    """Export the latest checkpoint of a run that is still going (to try it while it trains)."""
    import torch      # only in the training environment (.venv-train)

    names = sorted(p.name for p in (Path(dataset) / "train").iterdir() if p.is_dir())
    net = network(len(names))
    state = torch.load(Path(out) / "checkpoint.pt", weights_only=False)
    net.load_state_dict(state["net"])
    return export(net, names, imgsz, out)


def _plot(history, path: Path):
    # heavy (matplotlib, about 0.4 s): only for the curves drawn at the end of a run
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after choosing the Agg backend (no display needed)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([h["epoch"] for h in history], [h["val_accuracy"] for h in history], marker="o", label="val accuracy")
    ax2 = ax.twinx()
    ax2.plot([h["epoch"] for h in history], [h["loss"] for h in history], color="grey", label="train loss")
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation accuracy")
    ax2.set_ylabel("training loss")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--imgsz", type=int, default=64)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--start-from", help="an earlier run's best.pt, or an exported reader's .onnx (models/reader-DECK.onnx)")
    ap.add_argument("--grey", type=float, default=GREY, help="share of views shown without colour")
    ap.add_argument("--one-corner", type=float, default=ONE_CORNER,
                    help="share of views showing one corner twice (0 for whole-card views)")
    args = ap.parse_args()
    print(train(Path(args.dataset), Path(args.out), args.epochs, args.imgsz, args.batch, args.lr, threads=args.threads,
                resume=args.resume, start_from=Path(args.start_from) if args.start_from else None, grey=args.grey,
                one_corner=args.one_corner))


if __name__ == "__main__":
    main()
