"""A probe for the card-reader issue: can a corner-index reader trained only on synthetic data read
real cards?

    .venv-train/bin/python -m vision.train.index_probe DATASET OUT [--epochs 12] [--imgsz 64] [--upright]

Trains a classifier on DATASET/index (the corner-index crops of a `warref synth --deck standard`
dataset), exports it to ONNX, then reads every labelled corner index of the 52 identities in
../shared/realcards/phone (jokers and backs left out), cut with the same margin as the synthetic
crops, with onnxruntime. Prints identity, rank and suit accuracy, the worst confusions, and writes
probe.json in OUT. The real photos are only read, never trained on.
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision import realcards
from vision.metrics import rank_of
from vision.synth.render import INDEX_REGION, index_crop

from .classifier import train


def square(bgr: np.ndarray) -> np.ndarray:
    """Pad to a square (edge pixels repeated), so the classifier's centre crop keeps the whole index."""
    h, w = bgr.shape[:2]
    d = abs(h - w)
    if h > w:
        return cv2.copyMakeBorder(bgr, 0, 0, d // 2, d - d // 2, cv2.BORDER_REPLICATE)
    return cv2.copyMakeBorder(bgr, d // 2, d - d // 2, 0, 0, cv2.BORDER_REPLICATE)


def preprocess(bgr: np.ndarray, size: int) -> np.ndarray:
    """As ultralytics does for classification: shortest edge to size, centre crop, RGB in [0, 1]."""
    h, w = bgr.shape[:2]
    s = size / min(h, w)
    img = cv2.resize(bgr, (max(size, round(w * s)), max(size, round(h * s))), interpolation=cv2.INTER_LINEAR)
    y, x = (img.shape[0] - size) // 2, (img.shape[1] - size) // 2
    img = cv2.cvtColor(img[y:y + size, x:x + size], cv2.COLOR_BGR2RGB)
    return img.transpose(2, 0, 1).astype(np.float32) / 255


def read_real(onnx: Path, names: dict[int, str], size: int, root: Path | None = None) -> dict:
    import onnxruntime as ort

    session = ort.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
    feed = session.get_inputs()[0].name
    truth, guesses, confidences = [], [], []
    for photo in realcards.load("phone", root):
        image = None
        for label in photo.labels:
            if rank_of(label.card) is None:
                continue
            if image is None:
                image = cv2.imread(str(photo.path))
            crop = index_crop(image, [int(round(v)) for v in label.box])
            if crop is None:
                continue
            probs = session.run(None, {feed: preprocess(square(crop), size)[None]})[0][0]
            truth.append(label.card)
            guesses.append(names[int(np.argmax(probs))])
            confidences.append(float(np.max(probs)))
    n = len(truth)
    right = [t == g for t, g in zip(truth, guesses)]
    result = {
        "corners": n,
        "identity": sum(right) / n,
        "rank": sum(rank_of(t) == rank_of(g) for t, g in zip(truth, guesses)) / n,
        "suit": sum(t[-1] == g[-1] for t, g in zip(truth, guesses)) / n,
        "identity_above_0.9": (sum(r for r, c in zip(right, confidences) if c >= 0.9),
                               sum(1 for c in confidences if c >= 0.9)),
        "confusions": Counter(f"{t}->{g}" for t, g in zip(truth, guesses) if t != g).most_common(12),
    }
    return result


def upright_index_set(dataset: Path, out: Path, region=INDEX_REGION["standard"], margin: float = 0.15) -> Path:
    """Both corner indices of every rectified crop in DATASET/crops (the bottom-right one turned
    round), as an upright classification set: the reader's input once the card is rectified."""
    x0, y0, x1, y1 = region
    for src in sorted((dataset / "crops").glob("*/*/*.jpg")):
        part, code = src.parent.parent.name, src.parent.name
        card = cv2.imread(str(src))
        h, w = card.shape[:2]
        box = [int(x0 * w), int(y0 * h), int(x1 * w), int(y1 * h)]
        folder = out / part / code
        folder.mkdir(parents=True, exist_ok=True)
        for k, img in enumerate((card, cv2.rotate(card, cv2.ROTATE_180))):
            crop = index_crop(img, box, margin)
            if crop is not None:
                cv2.imwrite(str(folder / f"{src.stem}_{k}.jpg"), square(crop), [cv2.IMWRITE_JPEG_QUALITY, 95])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--imgsz", type=int, default=64)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--upright", action="store_true",
                        help="train on corner indices cut from the rectified crops (card turned upright) "
                             "instead of the index crops as they lie in the frame")
    args = parser.parse_args(argv)
    data = upright_index_set(args.dataset, args.out / "index-upright") if args.upright else args.dataset / "index"
    onnx = train(data, args.out, epochs=args.epochs, imgsz=args.imgsz, batch=args.batch,
                 fliplr=0.0, scale=0.25, erasing=0.1)
    names = {int(k): v for k, v in json.loads((args.out / "reader.json").read_text())["names"].items()}
    result = read_real(onnx, names, args.imgsz)
    (args.out / "probe.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
