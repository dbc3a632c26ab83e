"""The font-drawn index views the standard reader also trains on (vision/train/index_fonts.py)."""
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from vision.geometry import VIEW_SIZE
from vision.train import index_fonts as F


def ink(path, text: str, features=None) -> np.ndarray:
    font = ImageFont.truetype(str(path), 100)
    box = font.getbbox(text, features=features)
    img = Image.new("L", (box[2] + 10, box[3] + 10), 0)
    ImageDraw.Draw(img).text((5, 5), text, font=font, fill=255, features=features)
    a = np.asarray(img) > 128
    ys, xs = np.nonzero(a)
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(ys) else np.zeros((0, 0), bool)


def flat_top(glyph: np.ndarray) -> float:
    """How much of the glyph's width its top 8% of ink spans: near 1 for a bar, less for an arc."""
    band = glyph[:max(1, int(0.08 * glyph.shape[0]))]
    cols = np.nonzero(band.any(0))[0]
    return (cols.max() - cols.min() + 1) / glyph.shape[1]


installed = [p for p in map(F._font_path, F.FONT_NAMES) if p]


@pytest.mark.skipif(not installed, reason="no index fonts installed (make system-deps)")
@pytest.mark.parametrize("path", installed, ids=lambda p: p.stem)
def test_every_face_draws_every_rank(path):
    """A face without a glyph draws its 'missing' glyph (a box, or nothing): every rank must show ink
    that differs from it."""
    missing = ink(path, "\ue000")
    for rank in F.RANKS:
        glyph = ink(path, rank)
        assert glyph.size and (glyph.shape != missing.shape or (glyph != missing).any()), f"{path.stem} has no {rank}"


def test_flat_threes_are_flat():
    flats = [(p, F.FLAT_FEATURES.get(p.stem)) for p in installed if p.stem in F.FLAT_THREES]
    if not flats:
        pytest.skip("none of the flat-three faces is installed (make train-fonts)")
    for path, features in flats:
        assert flat_top(ink(path, "3", features)) > 0.85, path.stem
    # and the list is complete: every other face's 3 is round-topped by the same measure
    for path in installed:
        if path.stem not in F.FLAT_THREES:
            assert flat_top(ink(path, "3")) < 0.85, f"{path.stem} draws a flat 3: add it to FLAT_THREES"


def test_view_is_a_square_colour_image_and_repeatable():
    faces, pips = F.available_fonts()
    a = F.view(np.random.default_rng(3), "3H", faces, pips)
    b = F.view(np.random.default_rng(3), "3H", faces, pips)
    assert a.shape == (VIEW_SIZE, VIEW_SIZE, 3) and a.dtype == np.uint8
    assert (a == b).all()
    # red ink on pale paper: the darkest pixels lean red (BGR)
    dark = a[a.sum(2) < np.percentile(a.sum(2), 5)]
    assert dark[:, 2].mean() > dark[:, 1].mean()


def test_jokers_and_blank_corners_are_drawn_as_their_own_classes():
    faces, pips = F.available_fonts()
    rng = np.random.default_rng(4)
    joker = np.stack([F.view(rng, "JOKER", faces, pips) for _ in range(20)]).astype(float)
    blank = np.stack([F.view(rng, "NONE", faces, pips) for _ in range(20)]).astype(float)
    # a joker's corner carries ink (the word, a star); a corner without an index is mostly plain paper
    def busy(v):
        grey = v.mean(-1)
        return np.abs(np.diff(grey, axis=2)).mean(axis=(1, 2))
    assert np.median(busy(joker)) > 1.5 * np.median(busy(blank))


def test_reader_set_leaves_out_jokers_without_a_corner_index_but_not_their_faces():
    from vision.geometry import face_view
    from vision.train.reader_set import BLANK_JOKERS, views

    image = np.full((400, 600, 3), 200, np.uint8)
    card = {"face_up": True, "index_visible": True, "visible": 1.0, "card": "JOKER"}
    scene = {"cards": [dict(card, obb=[[50, 50], [150, 50], [150, 190], [50, 190]], artwork=next(iter(BLANK_JOKERS))),
                       dict(card, obb=[[300, 50], [400, 50], [400, 190], [300, 190]], artwork="svg-cards"),
                       dict(card, card="5H", obb=[[450, 50], [550, 50], [550, 190], [450, 190]], artwork="letele")]}
    codes = [code for code, _ in views(image, scene, "standard", np.random.default_rng(0))]
    assert codes == ["JOKER", "5H"]
    # a face reader sees the jester (a whole card, not two blank corners): all three
    faces = [code for code, _ in views(image, scene, "standard", np.random.default_rng(0), view=face_view)]
    assert faces == ["JOKER", "JOKER", "5H"]


def test_a_loose_view_shows_the_same_index_smaller_and_more_of_the_card():
    """A view of a card whose corners were placed ``loose`` times too far out (the index finder's
    card guessed too large, a loose box) shows the index at about 1/loose of its size."""
    faces, pips = F.available_fonts()

    def ink_box(loose):
        rng = np.random.default_rng(5)
        style = F.make_style(rng, faces, pips, big_pip=0.0, frames=0.0, blur=0.0)
        style["loose"] = loose
        grey = F.clean(rng, "7S", style, faces, pips, cover=False).mean(-1)[:, : VIEW_SIZE // 2]
        ys, xs = np.nonzero(grey < 0.5 * np.median(grey))
        return ys.max() - ys.min() + 1, xs.max() - xs.min() + 1

    (h1, w1), (h15, w15) = ink_box(1.0), ink_box(1.5)
    assert h15 / h1 == pytest.approx(1 / 1.5, abs=0.08) and w15 / w1 == pytest.approx(1 / 1.5, abs=0.1)
