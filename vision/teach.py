"""Teach warref a family's own deck (`warref teach`): one photo per card in, a deck out.

    deck = teach("grandmas", like="standard", cards=Path("photos/"))

How it learns, in four steps, on the CPU in a minute or two, without torch:

1. **Cards**: each photo's card code from its file name (``code_of``), the card found and
   flattened (``vision.flatten``). With ``labelled``: photos with YOLO labels as in
   ../shared/realcards/, each labelled card found (``labelled_cards``) and flattened.
2. **Views**: each card put into many made-up webcam frames (any size from a far seat to close,
   any turn, a slant, a box a few pixels off as the detector's are, the webcam's look:
   ``effects.webcam``), and cut into exactly the views each of the like deck's readers reads at
   run time (``vision.geometry``). A card's blank corners and bare table are ``NONE``.
3. **Readers**: every reader of the built-in deck it is like (the index reader, its members and
   its face reader) keeps its trained layers, which already tell ranks, suits and colours apart;
   only its last layer (192 features to the classes) is fitted again to the new views, starting
   from the installed one and held near it (a penalty on the change), so that what it knew of
   cards in general stays; beside the new views, views of warref's own art of the deck
   (``built_in``, ``REHEARSE`` frames per code), so that it does not forget the cards it read;
   once on the views as they are and once on their negatives. Of the
   installed layer and these two, the one that reads more check views right is kept (a deck
   printed light on dark reads as its negative; a deck the built-in reader already reads keeps it). Codes the deck does not have (jokers, in a deck without them) are
   never read.
4. **Check**: views of other made-up frames, and the photos held back where a card has more than
   one, read by the new deck's readers as the table reader combines them; the figure goes into
   the deck's model card and `warref decks`.

The detector keeps its weights; made-up tables dealt from the taught cards (``tables``) choose
whether it looks at each picture or at its negative (``detector_polarity``): a deck printed light
on dark looks like the cards it trained on in the negative. What it finds goes into the model card.
"""
from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
import dataclasses
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import cv2
import numpy as np

from referee.say import say, sentence_of

from . import art, decks
from .art import CARD_H, CARD_W, CardImage, as_card, backs, rounded_outline
from .decode import SUFFIXES
from .errors import BadImage, VisionError
from .detector import Detector
from .flatten import candidates, flatten, holding, one_card, warp
from .geometry import VIEW_SIZE, corner_views, face_view, view_of
from .profiles import BUILT_IN
from .reader import MODELS, NOT_A_CARD, IndexReader, TableReader, load_image
from .synth import effects
from .synth.layout import Deck
from .synth.render import render

VIEWS = 64                 # made-up frames per card photo (fewer when --minutes would not allow)
CHECK = 12                 # ... and per card for the check, from another seed
FIT_CHECK = 6              # ... and per card to choose between a reader's views and their negatives
TABLES = 40                # made-up tables dealt from the taught cards, to choose the detector's polarity
NONE_SHARE = 0.15          # NONE views beside the cards' (blank corners, bare table)
PULL = 1e-3                # the penalty on a last layer's change from the installed one
STEPS = 400                # Adam steps fitting a last layer
NEVER = -30.0              # the bias of a code the deck does not have
REHEARSE = 8               # made-up frames per code of the built-in art, fitted beside the taught cards'


class TeachError(VisionError):
    """Teaching cannot go on; the message names the file or the cards and says what to do."""


def codes_of(like: str) -> list[str]:
    """The codes of built-in deck ``like`` (its profile's); TeachError naming the built-in decks for another."""
    if like not in BUILT_IN:
        raise TeachError(say("--like {like}: choose one of {decks}", like=repr(like), decks=", ".join(BUILT_IN)))
    return BUILT_IN[like].codes


def deck_word(like: str) -> str:
    """A built-in deck's id as a refusal says it ("the standard deck"; in Portuguese "o baralho normal", as
    web/teach.py's ``like_word``)."""
    return say("standard") if like == "standard" else like


def code_of(name: str, codes: list[str]) -> str | None:
    """The card code a file name starts with (case aside), followed by the name's end, by a
    character that is not a letter or digit, or, after a code that ends in a letter, by a digit
    (``QH.png``, ``qh-2.jpg``, ``10C_front.jpg``, ``BACK.jpg``, ``JOKER2.png``, ``war3.jpg``: a
    deck's second joker or third War card); None if it starts with none."""
    stem = Path(name).stem.upper()
    for code in sorted(set(codes) | {"BACK"}, key=len, reverse=True):
        if not stem.startswith(code):
            continue
        after = stem[len(code):len(code) + 1]
        if not after or not after.isalnum() or (code[-1].isalpha() and after.isdigit()):
            return code
    return None


@dataclass
class Cards:
    """What teaching learns from: flattened card images by code."""
    like: str
    codes: list[str]                                   # the deck's codes (what it can read)
    flat: dict[str, list[np.ndarray]] = field(default_factory=dict)      # code -> card images (BGR, art size)
    files: dict[str, list[str]] = field(default_factory=dict)            # code -> file names
    lost: list[str] = field(default_factory=list)      # labelled photos whose card was not found

    def add(self, code: str, file: str, flat: np.ndarray) -> None:
        self.flat.setdefault(code, []).append(flat)
        self.files.setdefault(code, []).append(file)

    def shown(self) -> set[str]:
        return set(self.flat)


def collect(like: str, cards: Path | None = None, labelled: Path | None = None, allow_missing: bool = False,
            detector=None) -> Cards:
    """Every card photo of ``cards`` and every labelled card of ``labelled`` flattened, by code.
    TeachError naming each file that cannot be used (a name without a code, no card, two cards,
    an unreadable file), all of them at once; or naming the cards without a photo (unless
    ``allow_missing``)."""
    codes = codes_of(like)
    out = Cards(like, codes)
    problems: list[str] = []                 # every photo that cannot be used, said at once
    if cards is not None:
        folder = Path(cards)
        if not folder.is_dir():
            raise TeachError(say("--cards {folder}: no such folder", folder=str(folder)))
        photos = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
        if not photos:
            raise TeachError(say("--cards {folder}: no photos in it (JPEG, PNG, HEIC ...): one photo per card, named by "
                                 "its code (AS.jpg, 10H.png)", folder=str(folder)))
        for path in photos:
            code = code_of(path.name, codes)
            if code is None:
                problems.append(say("{file}: the file name does not start with a card code of the {like} deck (as "
                                    "`warref referee` spells them: {codes}, ...; BACK for the back)", file=str(path),
                                    like=deck_word(like), codes=", ".join(codes[:4])))
                continue
            try:
                out.add(code, path.name, flatten(load_image(path), detector, str(path)))
            except BadImage as err:          # its sentence as said (said with say(): they carry their message)
                problems.append(sentence_of(err))
    if len(problems) == 1:
        raise TeachError(problems[0])
    if problems:
        listed = problems[0]
        for problem in problems[1:]:
            listed = say("{above}\n  {next}", above=listed, next=problem)
        raise TeachError(say("{n} photos cannot be used; fix or remove them and teach the deck again:\n  {problems}",
                             n=len(problems), problems=listed))
    if labelled is not None:
        for code, name, card in labelled_cards(Path(labelled), codes, detector):
            if card is None:
                out.lost.append(name)
            else:
                out.add(code, name, card)
    if not out.shown():
        raise TeachError(say("no card photos: give --cards DIR (one photo per card, named by its code) or --labelled "
                             "DIR"))
    optional = BUILT_IN[like].optional              # codes it need not show (a standard deck's jokers)
    missing = [c for c in codes if c not in out.shown() and c not in optional]
    if missing and not allow_missing:
        lost = say(" ({n} labelled photos whose card was not found: {files}...)", n=len(out.lost),
                   files=", ".join(out.lost[:5])) if out.lost else ""
        raise TeachError(say("no photo of {n} card(s) of the {like} deck{lost}: {missing}; add them, or teach the deck "
                             "without them with --allow-missing (they are then read as the built-in {like} readers "
                             "read them)", n=len(missing), like=deck_word(like), lost=lost, missing=", ".join(missing)))
    if optional and not any(c in out.shown() for c in optional):
        out.codes = [c for c in codes if c not in optional]      # a deck without jokers reads none
    return out


def labelled_cards(folder: Path, codes: list[str], detector=None):
    """(code, file name, card) for each card of a labelled set (``classes.txt``, ``images/``,
    ``labels/``, YOLO boxes, as in ../shared/realcards/), the card flattened: where the labels box
    whole cards (``boxes_corners``), each box cut out with a margin and flattened as a card photo
    is; where they box corner indices, the card outline (or detector box) in the photo holding that
    card's labelled corners. A label whose card cannot be found is left out (``collect`` counts)."""
    names_file = folder / "classes.txt"
    if not names_file.is_file():
        raise TeachError(say("--labelled {folder}: no classes.txt (expected classes.txt, images/, labels/)",
                             folder=str(folder)))
    names = [n.upper() for n in names_file.read_text().split()]
    photos: dict[Path, dict[str, list]] = {}
    for image_path in sorted((folder / "images").iterdir()) if (folder / "images").is_dir() else []:
        label_path = folder / "labels" / f"{image_path.stem}.txt"
        if image_path.suffix.lower() not in SUFFIXES or not label_path.is_file():
            continue
        for line in label_path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 5 and int(parts[0]) < len(names) and names[int(parts[0])] in set(codes) | {"BACK"}:
                photos.setdefault(image_path, {}).setdefault(names[int(parts[0])], []).append(
                    tuple(float(v) for v in parts[1:]))
    boxes = [b for cards in photos.values() for bs in cards.values() for b in bs]
    if not boxes:
        raise TeachError(say("--labelled {folder}: no label names a card of the deck", folder=str(folder)))
    whole = not boxes_corners(photos)
    for image_path, cards in photos.items():
        try:
            image = load_image(image_path)
        except BadImage as err:
            raise TeachError(sentence_of(err)) from None
        h, w = image.shape[:2]
        for code, bs in cards.items():
            if not whole:
                yield code, image_path.name, holding(image, [((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w,
                                                              (cy + bh / 2) * h) for cx, cy, bw, bh in bs], detector)
                continue
            for cx, cy, bw, bh in bs:
                x0, x1 = max(0, int((cx - bw * 0.6) * w)), min(w, int((cx + bw * 0.6) * w) + 1)
                y0, y1 = max(0, int((cy - bh * 0.6) * h)), min(h, int((cy + bh * 0.6) * h) + 1)
                try:
                    quad = one_card(image[y0:y1, x0:x1], detector, str(image_path))
                except BadImage:
                    quad = None
                # an outline much smaller than the box is something printed on the card: not found
                fills = quad is not None and cv2.contourArea(quad) >= FILLS * bw * bh * w * h
                yield code, image_path.name, warp(image[y0:y1, x0:x1], quad) if fills else None


FILLS = 0.5                  # a whole-card box's card outline is at least this share of the box
CORNER_RATIO = 3.0           # a card outline this many times a label box's area: the boxes are corner indices


def boxes_corners(photos: dict[Path, dict[str, list]], sample: int = 40) -> bool:
    """Whether a labelled set boxes corner indices rather than whole cards: the card outlines
    found around its boxes (``flatten.candidates``, the smallest holding each box's centre) are
    mostly several times a box's size. Up to ``sample`` photos spread over the set are looked at;
    where no outline holds any box, boxes of more than 1.5% of the photo are taken as whole cards."""
    paths = list(photos)[::max(1, len(photos) // sample)]
    ratios = []
    for path in paths:
        image = load_image(path)
        h, w = image.shape[:2]
        quads = candidates(image)
        for cx, cy, bw, bh in (b for bs in photos[path].values() for b in bs):
            around = [cv2.contourArea(q) for q in quads
                      if cv2.pointPolygonTest(q.reshape(-1, 1, 2), (cx * w, cy * h), False) >= 0]
            if around:
                ratios.append(min(around) / max(bw * bh * w * h, 1.0))
    if ratios:
        return float(np.median(ratios)) >= CORNER_RATIO
    boxes = [b for cards in photos.values() for bs in cards.values() for b in bs]
    return float(np.median([bw * bh for _, _, bw, bh in boxes])) <= 0.015


# ---- views ---------------------------------------------------------------------------------------

def frame(card: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``card`` (art size, BGR) on a made-up table as a webcam sees it: (picture, the card's four
    corners as a detector would box them, clockwise from the top left, a few pixels off). The card
    is 45-300 pixels wide, as from a far seat to close at 640x480; the picture is the card's
    surroundings only (the webcam's look does not depend on what lies further away)."""
    width = float(np.exp(rng.uniform(np.log(45), np.log(300))))
    height = width * CARD_H / CARD_W
    angle = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(angle), np.sin(angle)
    half = np.array([[-width, -height], [width, -height], [width, height], [-width, height]]) / 2
    quad = half @ np.array([[c, s], [-s, c]]) + rng.normal(0, 0.035 * width, (4, 2))   # turned, at a slant
    margin = 0.25 * width + 8
    quad = quad - quad.min(0) + margin
    w, h = (np.ceil(quad.max(0) + margin)).astype(int)
    quad = quad.astype(np.float32)
    table = np.empty((h, w, 3), np.float32)
    table[:] = rng.uniform(20, 235, 3)
    table *= np.linspace(rng.uniform(0.75, 1.1), rng.uniform(0.75, 1.1), w, dtype=np.float32)[None, :, None]
    table += rng.normal(0, rng.uniform(2, 18), (h, w, 1)).astype(np.float32)
    src = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    M = cv2.getPerspectiveTransform(src, quad)
    small = width < CARD_W / 2
    source = cv2.resize(card, (CARD_W // 2, CARD_H // 2), interpolation=cv2.INTER_AREA) if small else card
    if small:
        M = M @ np.diag([2.0, 2.0, 1.0])
    paper = cv2.warpPerspective(source.astype(np.float32), M, (w, h), flags=cv2.INTER_LINEAR)
    outline = rounded_outline() if not small else cv2.resize(rounded_outline(), (CARD_W // 2, CARD_H // 2),
                                                             interpolation=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(outline, M, (w, h), flags=cv2.INTER_LINEAR)[..., None]
    img = table * (1 - alpha) + paper * alpha
    img *= rng.uniform(0.65, 1.2) * np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0), h,
                                                dtype=np.float32)[:, None, None]
    img = effects.webcam(np.clip(img, 0, 255).astype(np.uint8), rng, strength=float(rng.uniform(0.2, 1.0)), bgr=True)
    box = quad + rng.normal(0, 0.03 * width, (4, 2)).astype(np.float32)                # the detector's error
    return img, box


def views_for(reader: IndexReader, image: np.ndarray, box: np.ndarray, like: str,
              rng: np.random.Generator, sideways: bool = False) -> list[np.ndarray]:
    """The views ``reader`` reads of the card boxed by ``box``, as the table reader cuts them."""
    if reader.views == "corners":
        return corner_views(image, box, like, sideways)
    if reader.views == "face":
        return [face_view(image, box, like, bool(rng.random() < 0.5), sideways)]
    return [view_of(image, box, like, flip, sideways) for flip in (False, True)]


def bare(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A view of the table alone (``NONE``)."""
    h, w = image.shape[:2]
    size = int(rng.integers(24, min(h, w) // 2))
    y, x = int(rng.integers(0, h - size)), int(rng.integers(0, w - size))
    return cv2.resize(image[y:y + size, x:x + size], (VIEW_SIZE, VIEW_SIZE), interpolation=cv2.INTER_AREA)


def built_in(like: str, codes: list[str]) -> Cards:
    """The like deck's own art (every artwork warref draws it in) as cards to rehearse: fitted beside
    the taught cards so that a last layer learns the new deck without forgetting what it read."""
    out = Cards(like, codes)
    for face in art.faces(like):
        if face.code in codes:
            out.add(face.code, face.artwork, cv2.cvtColor(art.on_white(face.image), cv2.COLOR_RGB2BGR))
    return out


def with_backs(cards: Cards) -> Cards:
    """``cards`` as the readers learn them: where no back was photographed, with every back of the
    built-in deck's art as ``BACK`` (the readers have the last word on face or back, so they must
    know the backs on the table; a deck's own back photographed teaches that one alone)."""
    if "BACK" in cards.flat:
        return cards
    out = dataclasses.replace(cards, flat=dict(cards.flat), files=dict(cards.files))
    for back in art.backs(cards.like):
        out.add("BACK", back.artwork, cv2.cvtColor(art.on_white(back.image), cv2.COLOR_RGB2BGR))
    return out


def make_views(cards: Cards, readers: list[IndexReader], count: int, seed: int,
               progress: Callable[[int], None] | None = None, skip_last: bool = True):
    """For each reader, (views, labels): ``count`` made-up frames per card image (the last image
    of a card with several left out for the check when ``skip_last``), and NONE views."""
    rng = np.random.default_rng(seed)
    out = [([], []) for _ in readers]
    done = 0
    for code in sorted(cards.flat):
        images = cards.flat[code]
        use = images[:-1] if skip_last and len(images) > 1 else images
        for k in range(count):
            card = use[k % len(use)]
            image, box = frame(card, rng)
            for (views, labels), reader in zip(out, readers):
                vs = views_for(reader, image, box, cards.like, rng)
                views += vs
                labels += [code] * len(vs)
                if rng.random() < NONE_SHARE:
                    if reader.views != "face" and reader.sideways_none:
                        blank = views_for(reader, image, box, cards.like, rng, sideways=True)
                        views += blank
                        labels += [NOT_A_CARD] * len(blank)
                    views.append(bare(image, rng))
                    labels.append(NOT_A_CARD)
            done += 1
            if progress:
                progress(done)
    return out


# ---- readers -------------------------------------------------------------------------------------

class LastLayer:
    """A reader's ONNX graph opened at its last layer: the features it feeds (``features``) and
    the layer's weights (``weight``, ``bias``), which ``save`` writes back changed."""

    def __init__(self, path: Path):
        # heavy (onnx ~0.7 s, onnxruntime ~25 ms): only when a deck is taught, not when this module
        # is loaded to name a photo's card (code_of, web/teach.py)
        import onnx
        from onnx import numpy_helper
        self.path = Path(path)
        self.model = onnx.load(str(path))
        graph = self.model.graph
        gemm = [n for n in graph.node if n.op_type == "Gemm"][-1]
        self.feature_name, self.weight_name, self.bias_name = gemm.input[0], gemm.input[1], gemm.input[2]
        inits = {i.name: i for i in graph.initializer}
        self.weight = numpy_helper.to_array(inits[self.weight_name]).astype(np.float32)
        self.bias = numpy_helper.to_array(inits[self.bias_name]).astype(np.float32)
        tapped = onnx.ModelProto()
        tapped.CopyFrom(self.model)
        tapped.graph.output.append(onnx.helper.make_tensor_value_info(self.feature_name, onnx.TensorProto.FLOAT, None))
        import onnxruntime as ort       # as onnx above: only when a deck is taught
        options = ort.SessionOptions()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(tapped.SerializeToString(), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def features(self, views: list[np.ndarray], imgsz: int, negative: bool = False, batch: int = 512) -> np.ndarray:
        """The features the last layer reads for each view (``negative``: of the view's negative)."""
        out = []
        for a in range(0, len(views), batch):
            x = np.stack([cv2.cvtColor(cv2.resize(v, (imgsz, imgsz), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
                          for v in views[a:a + batch]]).transpose(0, 3, 1, 2).astype(np.float32) / 255
            if negative:
                x = 1 - x
            out.append(self.session.run([self.feature_name], {self.input: x})[0])
        return np.concatenate(out) if out else np.zeros((0, self.weight.shape[1]), np.float32)

    def save(self, weight: np.ndarray, bias: np.ndarray, path: Path) -> None:
        from onnx import numpy_helper   # heavy (onnx ~0.7 s): only when a deck is taught
        for init in self.model.graph.initializer:
            if init.name == self.weight_name:
                init.CopyFrom(numpy_helper.from_array(weight.astype(np.float32), self.weight_name))
            elif init.name == self.bias_name:
                init.CopyFrom(numpy_helper.from_array(bias.astype(np.float32), self.bias_name))
        Path(path).write_bytes(self.model.SerializeToString())


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, bias: np.ndarray, pull: float = PULL,
        steps: int = STEPS, lr: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """A last layer fitted to features ``x`` and class indices ``y`` by softmax cross-entropy plus
    ``pull`` times the squared change from the installed ``weight`` and ``bias`` (Adam, full batch)."""
    w, b = weight.copy(), bias.copy()
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    onehot = np.zeros((len(y), len(b)), np.float32)
    onehot[np.arange(len(y)), y] = 1
    for t in range(1, steps + 1):
        z = x @ w.T + b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) / len(y)
        gw = g.T @ x + 2 * pull * (w - weight)
        gb = g.sum(0) + 2 * pull * (b - bias)
        for param, grad, m, v in ((w, gw, mw, vw), (b, gb, mb, vb)):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            param -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w, b


def polarity(path: Path, reader: IndexReader, views, labels, tried, answers, rehearsal=([], [])):
    """(weight, bias, negative, layer): of the reader's last layer as installed, fitted to
    ``views`` as they are, and fitted to their negatives, the one that reads more of the ``tried``
    views right at the stated threshold, less those it reads wrong (a tie keeps the installed
    one: a change stays only if it reads better). A deck printed light on dark reads better as its
    negative, in which it looks like the cards the trained layers know; a deck the built-in reader
    already reads keeps it."""
    layer = LastLayer(path)
    y = np.array([reader.names.index(c) for c in [*labels, *rehearsal[1]]])
    t = np.array([reader.names.index(c) for c in answers])
    own = layer.features(rehearsal[0], reader.imgsz)          # the built-in art, as the installed layer sees it
    best = None
    for negative, fitted in ((False, False), (False, True), (True, True)):
        if fitted:
            w, b = fit(np.concatenate([layer.features(views, reader.imgsz, negative), own]), y, layer.weight, layer.bias)
        else:
            w, b = layer.weight, layer.bias
        z = layer.features(tried, reader.imgsz, negative) @ w.T + b
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        sure = p.max(1) >= reader.threshold
        score = int((sure & (p.argmax(1) == t)).sum()) - int((sure & (p.argmax(1) != t)).sum())
        if best is None or score > best[0]:
            best = (score, w, b, negative, fitted)
    return best[1], best[2], best[3], layer, best[4]


def reader_files(like: str, models: Path = MODELS) -> list[str]:
    """The file names of the like deck's readers: the index reader, its members, its face reader."""
    reader = BUILT_IN[like].reader
    meta = json.loads((Path(models) / reader).with_suffix(".json").read_text())
    return [reader, *meta.get("members", []), *([meta["face"]] if meta.get("face") else [])]


# ---- the detector --------------------------------------------------------------------------------

def taught_art(cards: Cards):
    """The taught cards as art of warref's scene generator (``vision.synth``): each card image with
    the rounded outline, and its backs (the BACK photo, else the built-in deck's)."""
    def art_of(code: str, image: np.ndarray) -> CardImage:
        return CardImage(cards.like, code, "taught", as_card(image))

    faces = {code: [art_of(code, im) for im in images] for code, images in cards.flat.items() if code != "BACK"}
    own = [art_of("BACK", im) for im in cards.flat.get("BACK", [])]
    return Deck(faces, own or backs(cards.like)[:3])


def tables(cards: Cards, count: int, seed: int, progress: Callable[[int], None] | None = None) -> list:
    # progress(done): tables dealt so far
    """``count`` made-up tables dealt from the taught art: (picture, the scene's labels)."""
    deck = taught_art(cards)
    out = []
    for index in range(count):
        rng = np.random.default_rng([seed, index])
        featured = [deck.codes[int(k)] for k in rng.integers(0, len(deck.codes), 2)]
        scene = render(rng, cards.like, deck, featured)
        out.append((cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR), scene.labels))
        if progress:
            progress(index + 1)
    return out


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two convex quadrilaterals (4x2)."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return float(inter / union) if union > 0 else 0.0


def found(detector, scenes: list, threshold: float = 0.5) -> dict:
    """Of the face-up cards at least 60% in sight on ``scenes``, those a box covers at IoU >= 0.5
    (``found``; a box the detector calls a back too: a taught deck's readers read every box and
    have the last word on face or back), and the boxes that cover no card or back at 0.3 (``stray``)."""
    got = cards = stray = 0
    for image, labels in scenes:
        boxes = detector(image, threshold)
        truths = [np.array(lb["obb"], float) for lb in labels]
        for label, truth in zip(labels, truths):
            if label["face_up"] and label["visible"] >= 0.6:
                cards += 1
                got += any(overlap(d.corners, truth) >= 0.5 for d in boxes)
        stray += sum(all(overlap(d.corners, t) < 0.3 for t in truths) for d in boxes)
    return {"cards": cards, "found": got, "stray": stray}


def detector_polarity(path: Path, scenes: list) -> dict:
    """Whether the detector sees the taught deck better in each picture's negative: of the two,
    the one that finds more cards less stray boxes on ``scenes`` (a tie keeps the pictures as they
    are). Returns both counts and the choice."""
    plain, negative = (found(Detector(path, negative=n), scenes) for n in (False, True))
    choose = negative["found"] - negative["stray"] > plain["found"] - plain["stray"]
    return {"negative": choose, "plain": plain, "negatives": negative, "tables": len(scenes)}


# ---- the whole of it -----------------------------------------------------------------------------

def check(cards: Cards, path: Path, like: str, seed: int, detector, count: int = CHECK) -> dict:
    """The new readers (in ``path``) on made-up frames from another seed, of the photo held back
    where a card has several: right and wrong at the stated threshold, each card's box read as the
    table reader reads it (``TableReader.probabilities``)."""
    reader = TableReader(like, models=path, detector=detector)
    names, threshold = reader.reader.names, reader.reader.threshold
    rng = np.random.default_rng(seed + 7919)
    right = wrong = total = 0
    for code in sorted(cards.flat):
        held = cards.flat[code][-1]
        for _ in range(count):
            image, box = frame(held, rng)
            p = reader.probabilities(image, [box])[0]
            total += 1
            if p.max() >= threshold:
                right += names[int(p.argmax())] == code
                wrong += names[int(p.argmax())] != code
    return {"views": total, "right": right, "wrong": wrong, "threshold": threshold}


SHEET_COLUMNS = 13         # pictures per row of the sheet of what a deck learnt from


def sheet(cards: Cards, width: int = CARD_W // 4) -> np.ndarray:
    """One picture of everything a deck learnt from (BGR), for a person to look over: every code
    of the deck in order, each photo's flattened card under its code (``-2`` for a second photo
    of it), and a grey "no photo" square for a card with none. A picture that is not the whole
    card upright (cut, turned, the table in it) teaches the readers wrong, and the per-card check
    cannot tell: it reads made-up pictures of that same picture."""
    height, caption = width * CARD_H // CARD_W, 22
    tiles = []
    for code in [*cards.codes, *(["BACK"] if "BACK" in cards.flat else [])]:
        images = cards.flat.get(code) or [None]
        for j, image in enumerate(images):
            tile = np.full((height + caption, width, 3), 255, np.uint8)
            if image is None:
                tile[:height] = 200
                cv2.putText(tile, "no photo", (6, height // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (60, 60, 60), 1,
                            cv2.LINE_AA)
            else:
                tile[:height] = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
            label = code if j == 0 else f"{code}-{j + 1}"
            cv2.putText(tile, label, (4, height + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
            tiles.append(cv2.copyMakeBorder(tile, 3, 3, 3, 3, cv2.BORDER_CONSTANT, value=(255, 255, 255)))
    columns = min(SHEET_COLUMNS, len(tiles))
    blank = np.full_like(tiles[0], 255)
    tiles += [blank] * (-len(tiles) % columns)
    return np.vstack([np.hstack(tiles[r:r + columns]) for r in range(0, len(tiles), columns)])


def teach(name: str, like: str, cards: Path | None = None, labelled: Path | None = None, minutes: float = 10.0,
          allow_missing: bool = False, replace: bool = False, seed: int = 0, models: Path = MODELS,
          progress: Callable[[str, int, int], None] | None = None) -> decks.Taught:
    """Teach warref deck ``name`` (see the module's text); ``progress(stage, done, total)``."""
    start = time.perf_counter()
    decks.check_name(name)
    if (decks.folder() / name).exists() and not replace:
        raise TeachError(say("a deck named {name} exists ({folder}); choose another name or --replace", name=repr(name),
                             folder=str(decks.folder() / name)))
    detector = Detector(Path(models) / "detector.onnx")
    got = collect(like, cards, labelled, allow_missing, detector)
    files = reader_files(like, models)
    readers = [IndexReader(Path(models) / f) for f in files]
    for r in readers:
        r.members = []                                   # each reader's own views, fitted on its own
    learnt = with_backs(got)
    sources = len(learnt.flat)
    # made-up tables for the detector: a tenth of the time given, 8 to TABLES of them (about 0.3 s each)
    made_up = int(np.clip(minutes * 60 * 0.1 / 0.3, 8, TABLES))
    scenes = tables(got, made_up, seed + 13, (lambda n, t=made_up: progress("tables", n, t)) if progress else None)
    seen = detector_polarity(Path(models) / "detector.onnx", scenes)
    detector.negative = seen["negative"]
    # as many made-up frames per card as fit in half of the time left, measured on a few
    probe = time.perf_counter()
    make_views(got, readers, 1, seed, skip_last=True)
    per_frame = (time.perf_counter() - probe) / max(1, sources)
    left = minutes * 60 - (time.perf_counter() - start)
    count = int(max(8, min(VIEWS, (left * 0.5) / max(per_frame * sources * 2.5, 1e-6))))
    work = decks.workspace(name)
    try:
        made = make_views(learnt, readers, count, seed,
                          progress=(lambda n, t=count * sources: progress("views", n, t)) if progress else None)
        trials = make_views(learnt, readers, FIT_CHECK, seed + 1)
        own = make_views(built_in(like, got.codes), readers, REHEARSE, seed + 2, skip_last=False)
        for k, (file, reader, (views, labels), (tried, answers), rehearsal) in enumerate(
                zip(files, readers, made, trials, own)):
            w, b, negative, layer, fitted = polarity(Path(models) / file, reader, views, labels, tried, answers,
                                                     rehearsal)
            for j, c in enumerate(reader.names):
                if c not in got.codes and c not in (NOT_A_CARD, "BACK"):
                    b[j] = NEVER
            layer.save(w, b, work / file)
            meta = dict(reader.meta)
            meta["negative"] = negative
            meta["taught"] = {"deck": name, "from": file, "views": len(views), "pull": PULL, "steps": STEPS,
                              "fitted": fitted, "rehearsed": len(rehearsal[0])}
            (work / file).with_suffix(".json").write_text(json.dumps(meta, indent=1))
            if progress:
                progress("readers", k + 1, len(files))
        (work / "cards").mkdir()
        for code, images in got.flat.items():
            for j, image in enumerate(images):
                cv2.imwrite(str(work / "cards" / f"{code}{'' if j == 0 else f'-{j + 1}'}.png"),
                            cv2.resize(image, (CARD_W // 2, CARD_H // 2), interpolation=cv2.INTER_AREA))
        cv2.imwrite(str(work / "cards.png"), sheet(got))
        result = check(learnt, work, like, seed, detector)
        if progress:
            progress("check", 1, 1)
        seconds = time.perf_counter() - start
        meta = {"name": name, "like": like, "codes": got.codes, "made": date.today().isoformat(),
                "photos": {c: got.files[c] for c in sorted(got.files)}, "not_found": got.lost, "frames_per_card": count,
                "held_back": result, "seconds": round(seconds, 1), "readers": files,
                "detector": {"file": "installed (models/detector.onnx)", **seen}}
        (work / "deck.json").write_text(json.dumps(meta, indent=1))
        (work / "README.md").write_text(model_card(meta))
        path = decks.install(work, name, replace)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return decks.read(path)


def model_card(meta: dict) -> str:
    held = meta["held_back"]
    photos = sum(len(v) for v in meta["photos"].values())
    seen = meta["detector"]
    used, other = (seen["negatives"], seen["plain"]) if seen["negative"] else (seen["plain"], seen["negatives"])
    finding = (f"On {seen['tables']} made-up tables dealt from these cards it finds {used['found']} of "
               f"{used['cards']} face-up cards, with {used['stray']} stray boxes, looking at "
               f"{'each picture' + chr(39) + 's negative' if seen['negative'] else 'the pictures as they are'} "
               f"({other['found']} and {other['stray']} the other way).")
    return f"""# Deck {meta['name']}: warref's readers taught this family's cards

- **What it is**: the readers of warref's built-in {meta['like']} deck ({', '.join(meta['readers'])}),
  each with its last layer fitted again to this deck's cards (beside warref's own art of the
  deck, so that it keeps reading cards like those); every other layer as installed.
  It reads {len(meta['codes'])} codes. Made {meta['made']} in {meta['seconds']} s by `warref teach`.
- **Data**: {photos} photos ({len(meta['photos'])} codes), each card put into {meta['frames_per_card']}
  made-up webcam frames (any size, turn and slant, the webcam's look), cut into the views the
  readers read.
- **How good**: on {held['views']} views held back (other made-up frames, and the photos held back
  where a card has several), at the stated threshold {held['threshold']}: {held['right']} read right,
  {held['wrong']} wrong, {held['views'] - held['right'] - held['wrong']} not read.
- **Finding the cards**: the card detector is warref's own, not fine-tuned. {finding}
- **Look it over**: `cards.png` shows every picture it learnt from. A picture that is not the
  whole card upright (cut, turned, the table in it) teaches it wrong, and the figures above
  cannot show that: take that card's photo again and teach the deck again.
- **Limits**: measured on made-up frames and tables of the photos themselves, not on a real
  table: check it with `warref detect --deck {meta['name']} PHOTO`.
"""
