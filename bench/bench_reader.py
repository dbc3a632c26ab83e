"""How fast the card reader reads a webcam frame and a photo on this machine (medians, not a timed test).

    python bench/bench_reader.py [--repeats 50] [--threads 2]

A 1280x720 frame with four face-up cards (vision.synth.flat) is read again and again with the
committed models through onnxruntime: the detector alone, the reader alone, the face reader alone,
the OpenCV steps between them; a live frame (one detector pass), the next live frame with no card
changed (``LIVE``: readings kept), the frame with one card blurred (read unsure: looked at again,
and on a live table's next frame that look remembered). The frame squeezed to a 640x640 square is
read as `warref detect` reads a photo (``PHOTO``: every step), and once more without each photo
step in turn, so the difference is what that step costs. Prints medians and p90 in ms.
"""
from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from vision.geometry import face_view
from vision.config import LIVE, PHOTO, ReaderConfig
from vision.reader import TableReader
from vision.refine import refine
from vision.synth.flat import flat_table


def timed(fn, repeats: int) -> list[float]:
    fn()                                    # warm up
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime threads (default 1, as warref runs)")
    ap.add_argument("--deck", default="standard")
    args = ap.parse_args()
    codes = {"standard": ["QH", "7S", "AD", "10C"], "woolly": ["8G", "12B", "3R", "WAR"],
             "namikopy": ["3", "11", "5", "7"]}[args.deck]
    layout = [((300, 360), 10), ((560, 340), -25), ((820, 380), 95), ((1050, 330), 180)]
    image, _ = flat_table(args.deck, [(c, at, a) for c, (at, a) in zip(codes, layout)], seed=3)
    def make(config=ReaderConfig()):
        return TableReader(args.deck, config, threads=args.threads)

    reader = make()
    found = reader.detector(image)
    views = [v for d in found for v in reader.views_of(image, d.corners)]
    live = make(LIVE)                       # as `warref run` reads frame after frame
    square = cv2.resize(image, (640, 640), interpolation=cv2.INTER_AREA)
    blurred = image.copy()                  # the last card blurred: read unsure (about 0.5), looked at again
    blurred[220:440, 950:1150] = cv2.GaussianBlur(blurred[220:440, 950:1150], (0, 0), 5)
    once, live_blurred, photo = make(ReaderConfig(again=0)), make(LIVE), make(PHOTO)
    flips = reader.config.face_flips
    rows = {
        "detector alone (letterbox, network, NMS)": timed(lambda: reader.detector(image), args.repeats),
        f"reader alone ({len(views)} index views)": timed(lambda: reader.reader.probabilities(views), args.repeats),
        f"snapping {len(found)} boxes to card edges": timed(lambda: [refine(image, d.corners) for d in found], args.repeats),
        "cutting the index views": timed(lambda: [reader.views_of(image, d.corners) for d in found], args.repeats),
        **({f"face reader alone ({len(flips) * len(found)} face views)": timed(
            lambda: reader.face.probabilities([face_view(image, d.corners, args.deck, flip)
                                               for d in found for flip in flips]), args.repeats)}
           if reader.face else {}),
        "detector + reader (a live frame)": timed(lambda: reader.read(image), args.repeats),
        "a live frame, no card changed (readings kept)": timed(lambda: live.read(image), args.repeats),
        "one card blurred, not looked at again (again=0)": timed(lambda: once.read(blurred), args.repeats),
        "one card blurred, looked at again": timed(lambda: reader.read(blurred), args.repeats),
        "one card blurred, next live frame (look kept)": timed(lambda: live_blurred.read(blurred), args.repeats),
        "square 640x640 photo, every step (PHOTO: warref detect)": timed(lambda: photo.read(square), args.repeats),
    }
    # what each photo step costs: the square photo read with every step but that one
    for step in PHOTO.switched_on():
        without = make(PHOTO.without(step))
        rows[f"square photo, every step but {step}"] = timed(lambda: without.read(square), args.repeats)
    print(f"1280x720 frame, {len(found)} cards found ({', '.join(r.card for r in reader.read(image))}), "
          f"detector input {reader.detector.imgsz}, reader input {reader.reader.imgsz}, {args.threads} onnxruntime "
          f"thread(s), {args.repeats} runs")
    for name, ms in rows.items():
        print(f"  {name:56s} median {statistics.median(ms):7.2f} ms   p90 {np.percentile(ms, 90):7.2f} ms")


if __name__ == "__main__":
    main()
