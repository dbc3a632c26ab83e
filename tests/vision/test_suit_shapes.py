"""Suit symbols in many designs (vision/train/suit_shapes.py) and the index views drawn with them
(vision/train/index_fonts.py): issue 39, clubs read as spades."""
from pathlib import Path

import numpy as np
import pytest

from vision.geometry import VIEW_SIZE
from vision.train import index_fonts as F
from vision.train import suit_shapes as S

URW = Path("/usr/share/fonts/opentype/urw-base35")
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")


@pytest.fixture
def small_scan(tmp_path, monkeypatch):
    """The scan over URW's and DejaVu's folders only (seconds), cached in a temporary place."""
    if not (URW.is_dir() and DEJAVU.is_dir()):
        pytest.skip("fonts-urw-base35 / fonts-dejavu not installed (make system-deps)")
    monkeypatch.setattr(S, "FONT_DIRS", [URW, DEJAVU])
    monkeypatch.setattr(S, "CACHE", tmp_path / "suit-fonts.json")
    S.scan.cache_clear()
    S.font_designs.cache_clear()
    yield
    S.scan.cache_clear()
    S.font_designs.cache_clear()


def stems(faces) -> set[str]:
    return {Path(f["path"]).stem for f in faces if f["ok"]}


def iou(a: np.ndarray, b: np.ndarray) -> float:
    a, b = S._norm(a) > 0.5, S._norm(b) > 0.5
    return (a & b).sum() / (a | b).sum()


def test_scan_finds_the_urw_and_dejavu_clubs_and_caches_them(small_scan):
    found = stems(S.scan())
    for face in ("C059-Bold", "NimbusRoman-Regular", "NimbusSans-Bold", "URWBookman-Demi", "P052-Roman",
                 "DejaVuSans", "DejaVuSans-Bold", "DejaVuSerif"):
        assert face in found, face
    assert S.CACHE.is_file()
    S.scan.cache_clear()
    assert stems(S.scan()) == found                 # read back from the cache
    # faces sharing one drawing are one design; DejaVu Sans and its bold draw the same suits
    designs = S.font_designs()
    dejavu = next(d for d in designs if any(Path(f).stem == "DejaVuSans" for f in d.faces))
    assert any(Path(f).stem == "DejaVuSans-Bold" for f in dejavu.faces)
    assert dejavu.outlined_glyphs                   # DejaVu has the outlined suits too
    assert len(designs) >= 4


def test_held_out_designs_are_never_picked_for_training(small_scan):
    designs = S.font_designs()
    held = [d for d in designs if d.held_out]
    assert any(Path(f).stem.startswith("P052") for d in held for f in d.faces)
    training = S.training_font_designs()
    assert training and not any(S.held_out_face(f) for d in training for f in d.faces)
    rng = np.random.default_rng(0)
    for _ in range(300):
        d = S.pick(rng)
        assert d.font is None or not d.font.held_out


def test_a_font_drawing_a_spade_for_a_club_is_caught():
    """FreeSerifBold draws a spade at U+2663 and a club at U+2660: swapped glyphs must fail."""
    path = DEJAVU / "DejaVuSans.ttf"
    if not path.is_file():
        pytest.skip("fonts-dejavu not installed")
    masks = {s: S.glyph_big(path, S.FILLED[s], 120) for s in S.SUITS}
    assert S.looks_right(masks)[0]
    assert not S.looks_right(dict(masks, C=masks["S"], S=masks["C"]))[0]
    assert not S.looks_right(dict(masks, H=masks["D"], D=masks["H"]))[0]
    freeserif = Path("/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf")
    if freeserif.is_file():
        glyphs = {s: S.glyph_big(freeserif, S.FILLED[s], 120) for s in S.SUITS}
        assert not S.looks_right(glyphs)[0]


@pytest.mark.parametrize("seed", range(12))
def test_drawn_designs_are_shapes_of_the_asked_height(seed):
    rng = np.random.default_rng(seed)
    drawn = S.Drawn.random(rng)
    for stroke in (0.0, 0.1):
        design = S.Design(drawn=drawn, stroke=stroke)
        for suit in S.SUITS:
            for height in (9, 14, 40, 120):
                m = design.mask(suit, height)
                assert m.shape[0] == height and 0.4 * height < m.shape[1] < 1.4 * height, (suit, height, m.shape)
                assert m.dtype == np.float32 and 0 <= m.min() and m.max() <= 1
                ink = m.mean()
                assert ink > (0.12 if stroke else 0.3), (suit, height, stroke, ink)
            if stroke:                                  # an outline: less ink than the filled shape
                assert design.big(suit).mean() < 0.8 * S.Design(drawn=drawn).big(suit).mean()


@pytest.mark.parametrize("seed", range(40))
def test_drawn_clubs_and_spades_differ(seed):
    drawn = S.Drawn.random(np.random.default_rng(100 + seed))
    club, spade = drawn.big("C"), drawn.big("S")
    # a round lobe on top, a point: the one place they differ much (overall they overlap ~0.8-0.9,
    # why a small club reads as a spade)
    assert S.tip_width(club) > S.TIP > S.tip_width(spade)
    assert iou(club, spade) < 0.93
    assert S.looks_right({s: drawn.big(s) for s in S.SUITS})[0]


def test_font_clubs_and_spades_differ(small_scan):
    for design in S.font_designs():
        club, spade = S.Design(font=design).big("C"), S.Design(font=design).big("S")
        assert S.tip_width(club) > S.TIP > S.tip_width(spade), design.name
        assert iou(club, spade) < 0.93, design.name


def test_suit_glyph_is_rgba_of_the_asked_size_and_colour():
    rng = np.random.default_rng(1)
    g = S.suit_glyph("C", 30, rng, colour=S.FOUR_COLOURS["C"])
    assert g.shape[0] == 30 and g.shape[2] == 4 and g.dtype == np.uint8
    assert (g[..., 3] > 200).sum() > 100 and tuple(g[0, 0, :3]) == S.FOUR_COLOURS["C"]


def test_views_keep_their_size_and_every_class_is_written(tmp_path):
    n = F.write(tmp_path, 1, seed=5, quiet=True)
    folders = sorted(p.name for p in (tmp_path / "train").iterdir())
    assert n == 54 and len(folders) == 54 and {"10C", "KS", "JOKER", "NONE"} <= set(folders)
    assert all(len(list((tmp_path / "train" / f).glob("*.jpg"))) == 1 for f in folders)
    faces, pips = F.available_fonts()
    rng = np.random.default_rng(2)
    for code in ("10C", "QS", "AH", "7D", "JOKER", "NONE"):
        v = F.view(rng, code, faces, pips)
        assert v.shape == (VIEW_SIZE, VIEW_SIZE, 3) and v.dtype == np.uint8


def test_suits_come_in_many_designs_and_the_new_looks_are_drawn():
    faces, pips = F.available_fonts()
    rng = np.random.default_rng(7)
    styles = [F.make_style(rng, faces, pips) for _ in range(400)]
    names = {s["design"].name for s in styles}
    assert len(names) > 20 and sum(s["design"].drawn is not None for s in styles) > 100
    kinds = " ".join(s["kind"] for s in styles)
    for kind in ("four-colour", "dark", "jumbo", "kids", "small"):
        assert kind in kinds, kind
    small = [s["pip_h"] for s in styles if "small" in s["kind"]]
    assert min(small) < 0.04                          # a club ~7-8 px tall in the 64 px input


def test_a_four_colour_club_is_green_and_a_dark_card_printed_light():
    faces, pips = F.available_fonts()
    rng = np.random.default_rng(3)
    design = S.Design(drawn=S.Drawn())
    green = F.make_style(rng, faces, pips, design=design, inks=dict(S.FOUR_COLOURS), paper=(245, 245, 240),
                         table=(245, 245, 240), frames=0.0, big_pip=0.0, blur=0.0)
    v = F.clean(rng, "9C", green, faces, pips, cover=False).astype(int)        # RGB
    ink = v[v.sum(2) < 450]
    assert len(ink) > 50
    assert ink[:, 1].mean() > ink[:, 0].mean() + 30 and ink[:, 1].mean() > ink[:, 2].mean() + 30
    dark = F.make_style(rng, faces, pips, design=design, paper=(20, 20, 30), table=(20, 20, 30), frames=0.0,
                        big_pip=0.0, blur=0.0,
                        inks={s: (235, 235, 230) for s in "SHDC"})
    v = F.clean(rng, "9S", dark, faces, pips, cover=False)
    assert np.median(v) < 60 and (v.min(2) > 200).mean() > 0.03          # light ink on dark stock


def test_bench_draws_the_asked_suit_height():
    """bench/bench_clubs.py forces a suit height in card pixels: the view's ink says so."""
    faces, pips = F.available_fonts()
    rng = np.random.default_rng(0)
    heights = []
    for px in (12, 24, 40):
        style = F.make_style(rng, faces, pips, design=S.Design(drawn=S.Drawn()), pip_h=px / 280, rank_h=0.1,
                             gap=0.01, x=0.035, y=0.03, frames=0.0, big_pip=0.0, blur=0.0, paper=(255, 255, 255),
                             inks={s: (0, 0, 0) for s in "SHDC"})
        v = F.clean(rng, "10C", style, faces, pips, cover=False)
        rows = np.nonzero((v[:, : VIEW_SIZE // 2].min(2) < 128).any(1))[0]
        # the rank's rows then a gap then the suit's: the suit is the last run of inked rows
        runs = np.split(rows, np.nonzero(np.diff(rows) > 1)[0] + 1)
        heights.append(len(runs[-1]))
    ratio = np.array(heights) / np.array([12, 24, 40])
    assert np.allclose(ratio, 96 / 87, atol=0.15), heights
