"""Pictures of cards for the tests that teach warref a deck (test_teach_deck, test_teach,
test_browser_teach, test_decode): warref's own Namikopy art, one picture per card, cards lying on a
table, and a picture saved as an iPhone saves photos (HEIC)."""
from __future__ import annotations

import io
from functools import cache

import cv2
import numpy as np
from PIL import Image

from vision import art


@cache
def _namikopy() -> tuple[tuple[str, np.ndarray], ...]:
    cards = {}
    for face in art.faces("namikopy"):
        if face.code not in cards:
            cards[face.code] = cv2.cvtColor(art.on_white(face.image), cv2.COLOR_RGB2BGR)
    return tuple(cards.items())


def namikopy_pictures() -> dict[str, np.ndarray]:
    """One picture per Namikopy card (warref's own art), BGR on white: the card alone."""
    return {code: image.copy() for code, image in _namikopy()}


def write_cards(folder, cards, names=None):
    folder.mkdir(parents=True, exist_ok=True)
    for code, image in cards.items():
        cv2.imwrite(str(folder / (names or {}).get(code, f"{code}.png")), image)
    return folder


def on_table(cards, size=(960, 1280), seed=0):
    """Card pictures lying on a grey table, turned, apart from each other."""
    rng = np.random.default_rng(seed)
    table = np.clip(rng.normal(90, 10, (*size, 3)), 0, 255).astype(np.uint8)
    for k, card in enumerate(cards):
        h, w = card.shape[:2]
        M = cv2.getRotationMatrix2D((w / 2, h / 2), 20 + 30 * k, 300 / w)
        M[:, 2] += np.array([350 + 560 * k, size[0] / 2]) - np.array([w / 2, h / 2])
        warped = cv2.warpAffine(card, M, (size[1], size[0]), borderValue=(0, 0, 0))
        mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), M, (size[1], size[0])) > 0
        table[mask] = warped[mask]
    return table


def heic(bgr: np.ndarray, orientation: int = 1) -> bytes:
    """``bgr`` saved as an iPhone would (HEIC), with an EXIF orientation."""
    im = Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    exif = im.getexif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    im.save(out, format="HEIF", quality=95, exif=exif.tobytes())
    return out.getvalue()
