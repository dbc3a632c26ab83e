"""Run the card detector (a YOLO oriented-box model exported to ONNX) with onnxruntime.

Finds face-up cards and face-down backs in a frame. The frame is letterboxed to the model's square
input; the raw output (centre, size, class scores and angle per anchor) is decoded in numpy and
overlapping boxes are merged with OpenCV's rotated-box NMS, across both classes (one piece of
cardboard is either a face or a back). Never imports torch or ultralytics.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.say import say

from .errors import ModelMissing


@dataclass
class Detection:
    kind: str                 # "card" (face up) or "back"
    score: float
    corners: np.ndarray       # 4x2 float32, pixels of the input image
    angle: float              # degrees, as cv2.minAreaRect reports it


def session(path: Path, threads: int | None = None):
    """An onnxruntime CPU session using ``threads`` cores. Default one: on 2 cores a whole frame
    (detector, OpenCV steps, reader) measured 17 ms with one thread and 32 ms with two, whose
    thread pool goes idle and wakes between the small steps (bench/bench_reader.py); one thread
    also leaves a core for the camera and the server."""
    # onnxruntime (~25 ms beyond numpy and OpenCV): only when a model is opened; the dashboard loads
    # this module (vision.tracker, through vision.reading) without running one
    import onnxruntime as ort

    if not Path(path).exists():
        raise ModelMissing(say("model file {path} is missing (train it with `warref train`, or check out models/)",
                               path=str(path)))
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def letterbox(image: np.ndarray, size: int, fill: float = 1.0) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Scale the longer side to ``size`` x ``fill``, pad to a square with grey around the middle;
    return it, the scale and the padding."""
    h, w = image.shape[:2]
    gain = min(size / h, size / w) * fill
    nw, nh = round(w * gain), round(h * gain)
    px, py = (size - nw) / 2, (size - nh) / 2
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if gain < 1 else cv2.INTER_LINEAR)
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = cv2.copyMakeBorder(resized, top, size - nh - top, left, size - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, gain, (left, top)


class Detector:
    def __init__(self, path: Path, threads: int | None = None, negative: bool = False):
        """``negative``: look at each picture's negative (a deck printed light on dark, whose cards
        then look like the ones the detector trained on: `warref teach` chooses it per deck)."""
        path = Path(path)
        meta = json.loads(path.with_suffix(".json").read_text()) if path.with_suffix(".json").exists() else {}
        self.negative = negative
        self.imgsz = int(meta.get("imgsz", 320))
        self.names = {int(k): v for k, v in meta.get("names", {"0": "card", "1": "back"}).items()}
        self.session = session(path, threads)
        self.input = self.session.get_inputs()[0].name

    def __call__(self, image: np.ndarray, threshold: float = 0.25, iou: float = 0.45,
                 fill: float = 1.0, contrast: bool = False) -> list[Detection]:
        """Detections above ``threshold`` in a BGR image, best first. ``fill`` < 1 shows the network
        the image smaller, in the middle of a grey square: cards that fill a close-up photo then
        look the size of the cards it was trained on (a webcam's view of a table). ``contrast``
        raises local contrast first (CLAHE on lightness): a pale card on a pale table stands out."""
        if self.negative:
            image = 255 - image
        if contrast:
            lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
            lab[..., 0] = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(lab[..., 0])
            image = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)
        boxed, gain, (left, top) = letterbox(image, self.imgsz, fill)
        blob = cv2.cvtColor(boxed, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)[None].astype(np.float32) / 255
        out = self.session.run(None, {self.input: blob})[0][0].T          # anchors x (4 + classes + 1)
        nc = out.shape[1] - 5
        scores = out[:, 4:4 + nc]
        cls = scores.argmax(1)
        conf = scores[np.arange(len(out)), cls]
        keep = conf >= threshold
        out, cls, conf = out[keep], cls[keep], conf[keep]
        if not len(out):
            return []
        cx = (out[:, 0] - left) / gain
        cy = (out[:, 1] - top) / gain
        w, h = out[:, 2] / gain, out[:, 3] / gain
        angle = np.degrees(out[:, -1])
        rects = [((float(a), float(b)), (float(c), float(d)), float(e)) for a, b, c, d, e in zip(cx, cy, w, h, angle)]
        picked = cv2.dnn.NMSBoxesRotated(rects, conf.tolist(), threshold, iou)
        picked = np.array(picked).reshape(-1)
        found = [Detection(self.names.get(int(cls[i]), str(cls[i])), float(conf[i]),
                           cv2.boxPoints(rects[i]).astype(np.float32), rects[i][2]) for i in picked]
        return sorted(found, key=lambda d: -d.score)
