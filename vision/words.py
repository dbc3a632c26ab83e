"""Cards found by a word they print: a joker says JOKER.

A joker has no rank and no suit, and its corners show whatever its design puts there: the word
stacked letter by letter, a star, a hat, nothing. The corner readers learn jokers only from the
designs they were trained on, and miss others (``models/reader-standard.md``). Most jokers print
the word itself, though, and text is what a general text reader reads best. So the photo is read
for text, and a line that says a deck's word (``WORDS``: for the standard deck ``JOKER``, in any
case, letters only, as a word of its own) is that card, as sure as the text reader is of the line.

The text reader is RapidOCR (``rapidocr`` on PyPI, Apache-2.0): PaddleOCR's PP-OCRv6 detector
and recogniser as ONNX models inside its wheel, run by ONNX Runtime as the rest of ``vision/``.
A well-kept library rather than a text reader of our own: reading printed words in any typeface,
slanted, small and upside down is its whole job, and it reads the real jokers our own drawn
jokers never taught the readers to read. The models are the wheel's own files, named here, so
nothing is downloaded (it would otherwise check them and fetch what is missing).

A card's words are grouped: a joker prints its word at both ends, and two words within
``CARD_REACH`` times the longer word's length of each other are taken for one card.
"""
from __future__ import annotations

import importlib.util
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.say import say

from .errors import ModelMissing
from .profiles import BUILT_IN

# the words a deck's cards print, upper case, letters only -> the card they name, by deck: its
# profile's ``words`` (vision/profiles.py), for the decks that print any
WORDS = {name: p.words for name, p in BUILT_IN.items() if p.words}
# two words whose centres lie within this many times the longer word's length are on one card:
# a card is about 1.7 widths corner to corner and a printed name takes half its width or more
CARD_REACH = 3.0
# the wheel's models (rapidocr 3.10.0): PP-OCRv6 small detector and recogniser, and PaddleOCR's
# mobile v2.0 direction classifier (a line upside down is turned before it is read)
MODEL_FILES = {"Det": "PP-OCRv6_det_small.onnx", "Rec": "PP-OCRv6_rec_small.onnx",
               "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx"}


@dataclass(frozen=True)
class Word:
    card: str
    probability: float           # the text reader's, of the whole line
    quad: np.ndarray             # 4 x 2 pixels, around the line of text
    text: str                    # as read

    @property
    def centre(self) -> np.ndarray:
        return self.quad.mean(axis=0)

    @property
    def length(self) -> float:
        q = self.quad
        return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])))


def names(text: str, deck: str) -> str | None:
    """The card ``text`` names in ``deck`` (a word of it, letters only, is one of ``WORDS``), or
    None. "Joker" and "JOKER*" name the joker; "Jokers" and "ajoker" do not."""
    words = WORDS.get(deck, {})
    for token in re.findall(r"[^\W\d_]+", text):
        card = words.get(token.upper())
        if card:
            return card
    return None


def groups(words: list[Word]) -> list[list[Word]]:
    """``words`` in cards: words within ``CARD_REACH`` times the longer one's length of each other
    (and so on, one to the next) are one card's. Each group keeps the words' order."""
    parent = list(range(len(words)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(words):
        for j in range(i + 1, len(words)):
            b = words[j]
            if a.card == b.card and np.linalg.norm(a.centre - b.centre) <= CARD_REACH * max(a.length, b.length):
                parent[root(j)] = root(i)
    out: dict[int, list[Word]] = {}
    for i, w in enumerate(words):
        out.setdefault(root(i), []).append(w)
    return list(out.values())


def model_paths() -> dict[str, Path]:
    """The text reader's model files, by task (``MODEL_FILES``), from the installed wheel; a clear
    ``ModelMissing`` where rapidocr or a file of it is not there. Cheap: nothing is loaded."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.origin:
        raise ModelMissing(say("the text reader is not installed: `pip install rapidocr==3.10.0` (make demo and "
                               "make test install it), or read without words (--no-words)"))
    root = Path(spec.origin).resolve().parent / "models"
    paths = {task: root / name for task, name in MODEL_FILES.items()}
    for path in paths.values():
        if not path.is_file():
            raise ModelMissing(say("the text reader's model {path} is missing: reinstall rapidocr==3.10.0",
                                   path=str(path)))
    return paths


class WordReader:
    """Reads a photo's text and keeps the lines that name a card of ``deck`` (``find``)."""

    def __init__(self, deck: str = "standard", threads: int | None = None):
        paths = model_paths()
        from rapidocr import RapidOCR      # imported here: only photos read with words need it

        self.deck = deck
        params = {"Global.log_level": "error",         # not a warning for every photo without text
                  # one thread unless told, as every onnxruntime session here (``detector.session``)
                  "EngineConfig.onnxruntime.intra_op_num_threads": int(threads or 1),
                  "EngineConfig.onnxruntime.inter_op_num_threads": 1}
        params.update({f"{task}.model_path": str(path) for task, path in paths.items()})
        logging.getLogger("RapidOCR").setLevel(logging.ERROR)
        self._ocr = RapidOCR(params=params)

    def find(self, image: np.ndarray) -> list[Word]:
        """The lines of text in ``image`` (BGR) that name a card, surest first."""
        result = self._ocr(image)
        if result.txts is None:
            return []
        out = []
        for quad, text, score in zip(result.boxes, result.txts, result.scores):
            card = names(text, self.deck)
            if card:
                out.append(Word(card, float(score), np.asarray(quad, dtype=np.float32).reshape(4, 2), text))
        return sorted(out, key=lambda w: -w.probability)
