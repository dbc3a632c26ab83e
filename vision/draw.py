"""Pictures of what the reader saw: the cards' oriented boxes and readings drawn on the frame."""
from __future__ import annotations

import cv2
import numpy as np


def draw_reads(image: np.ndarray, reads, threshold: float = 0.0) -> np.ndarray:
    """A copy of ``image`` with each reading's box (green face, blue back) and its label."""
    out = image.copy()
    scale = max(0.4, min(out.shape[:2]) / 900)
    for r in reads:
        if r.confidence < threshold:
            continue
        colour = (200, 120, 0) if r.card == "BACK" else (0, 170, 0)
        pts = np.asarray(r.corners, np.float32).round().astype(np.int32)
        cv2.polylines(out, [pts], True, colour, max(1, round(2 * scale)), cv2.LINE_AA)
        text = f"{r.card} {r.confidence:.2f}"
        x, y = int(pts[:, 0].min()), int(pts[:, 1].min()) - 4
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, 1)
        y = max(th + 2, y)
        cv2.rectangle(out, (x, y - th - 3), (x + tw + 2, y + 2), colour, -1)
        cv2.putText(out, text, (x + 1, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out
