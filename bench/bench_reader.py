"""How fast the card reader reads a webcam frame on this machine (medians, not a timed test).

    python bench/bench_reader.py [--repeats 50] [--threads 2]

A 1280x720 frame with four face-up cards (vision.synth.flat) is read again and again with the
committed models through onnxruntime: the detector alone, the reader alone (the four cards' index
views, two per card), the face reader alone where the deck has one, the OpenCV steps between them,
and everything together as a live table reads a frame (one detector pass), as `warref detect`
reads a photo (two more passes for close-ups, then a look at each card's area cropped: ``ZOOM``), and as a live table reads the next frame when no
card has changed (`reuse`: the readings are kept); boxes down to the detector score every path
reads (`GATE`). The same frame with one card blurred, so that it reads unsure, is read as every
path reads it: its area cropped and looked at again (``AGAIN``), and on a live table's next
frames, with nothing changed, that look remembered. The same frame stretched to a 640x640 square is read as `warref detect` reads a
square photo: as it is (`--as-is`) and stretched back to cameras' shapes (`UNSTRETCH`, the
default for square photos), and with cards also looked for by their corner index alone
(`indices`, the standard deck's default for photos: `vision/indices.py`), and with the photo's text
read too (`words`, the standard deck's default for photos: `vision/words.py`).
Prints medians and p90 in ms.
"""
from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from vision.geometry import face_view
from vision.reader import FACE_FLIPS, PHOTO_PASSES, UNSTRETCH, ZOOM, TableReader
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
    reader = TableReader(args.deck, threads=args.threads)
    found = reader.detector(image)
    views = [v for d in found for v in reader.views_of(image, d.corners)]
    passes = TableReader(args.deck, threads=args.threads, passes=PHOTO_PASSES)
    photo = TableReader(args.deck, threads=args.threads, passes=PHOTO_PASSES, zoom=ZOOM)
    live = TableReader(args.deck, threads=args.threads, reuse=True)      # as `warref run` reads frame after frame
    square = cv2.resize(image, (640, 640), interpolation=cv2.INTER_AREA)
    blurred = image.copy()                  # the last card blurred: read unsure (about 0.5), looked at again
    blurred[220:440, 950:1150] = cv2.GaussianBlur(blurred[220:440, 950:1150], (0, 0), 5)
    once = TableReader(args.deck, threads=args.threads, again=0)
    live_blurred = TableReader(args.deck, threads=args.threads, reuse=True)
    unstretch = TableReader(args.deck, threads=args.threads, passes=PHOTO_PASSES, unstretch=True, zoom=ZOOM)
    indices = TableReader(args.deck, threads=args.threads, passes=PHOTO_PASSES, unstretch=True, zoom=ZOOM,
                          indices=True)
    words = TableReader(args.deck, threads=args.threads, passes=PHOTO_PASSES, unstretch=True, zoom=ZOOM,
                        indices=True, words=True)
    rows = {
        "detector alone (letterbox, network, NMS)": timed(lambda: reader.detector(image), args.repeats),
        f"reader alone ({len(views)} index views)": timed(lambda: reader.reader.probabilities(views), args.repeats),
        f"snapping {len(found)} boxes to card edges": timed(lambda: [refine(image, d.corners) for d in found], args.repeats),
        "cutting the index views": timed(lambda: [reader.views_of(image, d.corners) for d in found], args.repeats),
        **({f"face reader alone ({len(FACE_FLIPS) * len(found)} face views)": timed(
            lambda: reader.face.probabilities([face_view(image, d.corners, args.deck, flip)
                                               for d in found for flip in FACE_FLIPS]), args.repeats)}
           if reader.face else {}),
        "detector + reader (a live frame)": timed(lambda: reader.read(image), args.repeats),
        "a live frame, no card changed (readings kept)": timed(lambda: live.read(image), args.repeats),
        "one card blurred, not looked at again (again=0)": timed(lambda: once.read(blurred), args.repeats),
        "one card blurred, looked at again": timed(lambda: reader.read(blurred), args.repeats),
        "one card blurred, next live frame (look kept)": timed(lambda: live_blurred.read(blurred), args.repeats),
        f"photo, {len(PHOTO_PASSES)} detector passes, no close looks": timed(lambda: passes.read(image), args.repeats),
        "photo, passes and close looks (warref detect)": timed(lambda: photo.read(image), args.repeats),
        "square 640x640 photo, as it is (--as-is)": timed(lambda: photo.read(square), args.repeats),
        f"square photo, also as {len(UNSTRETCH)} camera shapes": timed(lambda: unstretch.read(square), args.repeats),
        **({"square photo, shapes and corner indices alone": timed(lambda: indices.read(square), args.repeats)}
           if indices.indices else {}),
        **({"square photo, shapes, indices and words (warref detect)": timed(lambda: words.read(square), args.repeats),
            "the square photo's text alone": timed(lambda: words._word_reader.find(square), args.repeats)}
           if words.words else {}),
    }
    print(f"1280x720 frame, {len(found)} cards found ({', '.join(r.card for r in reader.read(image))}), "
          f"detector input {reader.detector.imgsz}, reader input {reader.reader.imgsz}, {args.threads} onnxruntime "
          f"thread(s), {args.repeats} runs")
    for name, ms in rows.items():
        print(f"  {name:56s} median {statistics.median(ms):7.2f} ms   p90 {np.percentile(ms, 90):7.2f} ms")


if __name__ == "__main__":
    main()
