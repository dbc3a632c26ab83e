"""Fine-tune an installed reader (its ONNX file) on a taught deck's views, on the CPU (needs torch).

    model = tune(Path("models/reader-standard.onnx"), views, labels, negative=True, weight=w, bias=b)

The reader's ONNX weights are put into ``reader_net.network`` (``reader_net.from_onnx``), checked
to give the ONNX outputs on a few of the views, its last layer set to the one enrolment fitted
(``weight``, ``bias``), and then the last ``blocks`` convolutions and the last layer (or the whole
network, ``blocks=0``) trained on the views with a small learning rate, augmented
(``reader_net.augment``), pulled towards the starting weights (a penalty ``pull`` on the squared
change), batch norms as installed. Returns the exported ONNX bytes.
"""
from __future__ import annotations

import io
import time
from pathlib import Path

import cv2
import numpy as np

LR = 3e-4
PULL = 1e-2
BLOCKS = 0                  # trained convolutions from the end; 0 trains all of them
BATCH = 64


def as_tensor(views: list[np.ndarray], imgsz: int, negative: bool):
    import torch
    x = np.stack([cv2.cvtColor(cv2.resize(v, (imgsz, imgsz), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
                  for v in views]).transpose(0, 3, 1, 2)
    x = torch.from_numpy(np.ascontiguousarray(x))
    return 255 - x if negative else x                        # uint8: a negative view is 1 - x in 0..1


def onnx_outputs(path_or_bytes, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return np.concatenate([session.run(None, {name: x[a:a + 256]})[0] for a in range(0, len(x), 256)])


def load(path: Path, classes: int, sample):
    """``reader_net.network`` set to the ONNX reader's weights; ValueError unless it gives the ONNX
    file's probabilities on ``sample`` (float 0..1) to 1e-4."""
    import torch

    from .reader_net import Softmaxed, from_onnx, network
    net = network(classes)
    from_onnx(net, Path(path), sample)
    net.eval()
    with torch.no_grad():
        mine = Softmaxed(net)(sample).numpy()
    theirs = onnx_outputs(path, sample.numpy())
    if np.abs(mine - theirs).max() > 1e-4:
        raise ValueError(f"{path}: the torch network gives {np.abs(mine - theirs).max():.2g} off the ONNX outputs")
    return net


def tune(path: Path, views: list[np.ndarray], labels: np.ndarray, negative: bool, weight: np.ndarray,
         bias: np.ndarray, seconds: float = 60.0, imgsz: int = 64, epochs: int = 4, lr: float = LR,
         pull: float = PULL, blocks: int = BLOCKS, grey: float = 0.15, seed: int = 0, threads: int = 2,
         rehearse: tuple | None = None, log=None) -> bytes:
    """The reader at ``path`` fine-tuned on ``views`` (BGR) with class indices ``labels``, read as
    negatives when ``negative``, its last layer starting from ``weight``, ``bias``; at most
    ``epochs`` passes, stopping after ``seconds``. ``rehearse``: (views, labels) of the cards the
    reader was trained on, mixed in as they are (never negated), so that it keeps reading every
    card of the deck. Returns the ONNX model's bytes."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    from .reader_net import Softmaxed, augment
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    start = time.perf_counter()
    x = as_tensor(views, imgsz, negative)
    y = torch.as_tensor(np.asarray(labels), dtype=torch.long)
    sample = x[torch.randperm(len(x), generator=g)[:512]].float() / 255
    if rehearse is not None and len(rehearse[0]):
        x = torch.cat([x, as_tensor(rehearse[0], imgsz, False)])
        y = torch.cat([y, torch.as_tensor(np.asarray(rehearse[1]), dtype=torch.long)])
    net = load(path, len(weight), sample)
    layers = list(net)
    linear = next(m for m in layers if isinstance(m, nn.Linear))
    linear.weight.data = torch.from_numpy(np.asarray(weight, np.float32).copy())
    linear.bias.data = torch.from_numpy(np.asarray(bias, np.float32).copy())
    convs = [i for i, m in enumerate(layers) if isinstance(m, nn.Conv2d)]
    first = convs[-blocks] if blocks else 0
    trained = [p for m in layers[first:] for p in m.parameters()]
    for p in net.parameters():
        p.requires_grad_(False)
    for p in trained:
        p.requires_grad_(True)
    anchor = [p.detach().clone() for p in trained]
    opt = torch.optim.Adam(trained, lr=lr)
    net.eval()                                         # batch norms keep the installed statistics
    net[-2].train()                                    # ... dropout as in training
    steps = 0
    for epoch in range(epochs):
        order = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), BATCH):
            idx = order[i:i + BATCH]
            xb = augment(x[idx].float() / 255, g, grey, 0.0)
            loss = F.cross_entropy(net(xb), y[idx], label_smoothing=0.05)
            loss = loss + pull * sum(((p - a) ** 2).sum() for p, a in zip(trained, anchor))
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
            if time.perf_counter() - start > seconds:
                break
        if log:
            log(f"{Path(path).name}: epoch {epoch + 1}, loss {loss.item():.3f}, {time.perf_counter() - start:.0f} s")
        if time.perf_counter() - start > seconds:
            break
    net.eval()
    buffer = io.BytesIO()
    torch.onnx.export(Softmaxed(net), torch.zeros(1, 3, imgsz, imgsz), buffer, input_names=["images"],
                      output_names=["probabilities"], dynamic_axes={"images": {0: "batch"}, "probabilities": {0: "batch"}},
                      opset_version=17, dynamo=False)
    return buffer.getvalue()


def available() -> bool:
    """Whether torch (and onnx's exporter) can be imported here."""
    try:
        import onnx  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return False
    return True
