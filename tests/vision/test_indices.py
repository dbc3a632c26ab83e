"""Cards found by their corner index alone (vision/indices.py) and read into a photo's cards."""
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import geometry, indices
from vision.config import PHOTO, ReaderConfig
from vision.lab.metrics import iou
from vision.reader import MODELS, IndexReader, TableReader
from vision.steps import Context
from vision.steps import indices as index_step
from vision.synth.flat import flat_table

REAL = Path(__file__).resolve().parents[3] / "shared" / "realcards"
C = ReaderConfig()
BOX_POWER, INDEX_SCORE, LONE_CORNER = C.box_power, C.index_score, C.lone_corner


@pytest.fixture(scope="module")
def reader():
    return IndexReader(MODELS / "reader-standard.onnx")


def _stated():
    return TableReader("standard").reader.threshold


def _with_indices(reader, image, reads, threshold=C.gate):
    """The indices step alone, run on ``reads`` as ``reader`` runs it (threshold: the gate)."""
    return index_step.step(image, reads, Context(reader, threshold))


def _made_with(init, made):
    """``TableReader.__init__`` that first notes the config each reader is made with."""
    def noting(self, deck="standard", config=C, *a, **k):
        made.append(config)
        return init(self, deck, config, *a, **k)
    return noting


@pytest.mark.parametrize("turn", [0, 30, 90, 145, 200, 300])
def test_a_rank_above_a_suit_places_the_card_they_are_the_index_of(turn):
    a = np.radians(turn)
    down = np.array([-np.sin(a), np.cos(a)])          # the index's way down, turned on screen
    rank = np.array([300.0, 250.0])
    suit = rank + 40 * down
    cards = indices.placings([(rank[0], rank[1], 30.0), (suit[0], suit[1], 24.0)])
    assert len(cards) == 2                             # either mark may be the rank: both are tried
    card = next(c for c in cards if np.allclose(indices._at(c, indices.RANK), rank, atol=0.01))
    assert np.allclose(indices._at(card, indices.SUIT), suit, atol=0.01)
    sides = np.linalg.norm(card - np.roll(card, -1, 0), axis=1)
    w, h = geometry.CARD_SIZE
    scale = 40 / (indices.SUIT[1] - indices.RANK[1])
    assert np.allclose(sides, scale * np.array([w, h, w, h]), rtol=1e-4)
    a_, b_ = card[1] - card[0], card[2] - card[1]
    assert a_[0] * b_[1] - a_[1] * b_[0] > 0           # clockwise on screen, top-left corner first
    assert np.allclose((card[3] - card[0]) / np.linalg.norm(card[3] - card[0]), down, atol=1e-4)


def test_corner_view_is_the_flattened_card_s_top_left_corner_warped_alone():
    image, placed = flat_table("standard", [("7D", (320, 320), 20)], size=(640, 640), card_h=400)
    corners = placed[0].corners
    top_left, _ = geometry.corners_of(geometry.rectify(image, corners), "standard")
    assert np.array_equal(geometry.corner_view(image, corners, "standard"), geometry._square(top_left, top_left))
    # the same as the first of corner_views when the corners are given upright
    assert np.array_equal(geometry.corner_view(image, geometry.portrait(corners), "standard"),
                          geometry.corner_views(image, corners, "standard")[0])


def test_marks_far_apart_or_of_unlike_sizes_are_no_index():
    assert indices.placings([(100, 100, 30), (100, 300, 30)]) == []      # too far apart
    assert indices.placings([(100, 100, 30), (100, 130, 5)]) == []       # a speck beside a glyph
    assert indices.placings([]) == []


def test_both_corner_indices_of_a_card_on_a_white_sheet_are_found_where_they_are(reader):
    image, placed = flat_table("standard", [("7D", (330, 300), 20)], size=(640, 640), card_h=520, seed=3,
                               table="paper")
    found = indices.find(image, reader)
    sure = [f for f in found if f.probability >= 0.9]
    assert [f.card for f in sure] == ["7D", "7D"]
    corners = placed[0].corners
    expected = [indices._at(corners, indices.RANK), indices._at(np.roll(corners, -2, 0), indices.RANK)]
    for where in expected:                 # the top-left index, and the bottom-right one (turned round)
        assert min(np.linalg.norm(f.centre - where) for f in sure) < 0.03 * 520


@pytest.mark.parametrize("artwork", ["letele", "svg-cards", "cardsjs"])
def test_a_card_s_two_indices_are_known_as_one_card_whatever_the_size_of_its_index(reader, artwork):
    # the card's size is guessed from its index as the usual layout prints it; svg-cards prints
    # small indices, so its card is guessed about half as large again as it is
    image, placed = flat_table("standard", [("7D", (320, 320), 20)], size=(640, 640), card_h=400, seed=3,
                               table="paper", artwork=artwork)
    found = [f for f in indices.find(image, reader) if f.probability >= 0.7]
    assert [f.card for f in found] == ["7D", "7D"]
    assert indices.both_corners(found, found[0]) and indices.both_corners(found, found[1])
    moved = indices.Finding("7D", 0.9, found[1].corners + np.float32([200, 0]))    # not where the other is
    assert not indices.both_corners([found[0], moved], found[0])
    same_way = indices.Finding("7D", 0.9, found[0].corners + (found[1].centre - found[0].centre))
    assert not indices.both_corners([found[0], same_way], found[0])                # not turned round


@pytest.mark.parametrize("code", ["10S", "9D", "10H", "7S", "KH"])
def test_the_pips_and_picture_in_a_card_s_middle_are_not_found_as_a_card(reader, code):
    # a close-up of the card's middle: pips one above another, no index in view
    image, _ = flat_table("standard", [(code, (320, 320), 15)], size=(640, 640), card_h=1100, seed=3)
    assert all(f.probability * INDEX_SCORE ** BOX_POWER < _stated() for f in indices.find(image, reader))


@pytest.mark.parametrize("table", ["wood", "felt", "cloth", "laminate", "pattern", "paper"])
def test_an_empty_table_shows_no_index(reader, table):
    image, _ = flat_table("standard", [], size=(640, 640), seed=5, table=table)
    assert all(f.probability * INDEX_SCORE ** BOX_POWER < _stated() for f in indices.find(image, reader))


def test_a_card_the_detector_misses_is_read_from_its_index(monkeypatch):
    image, placed = flat_table("standard", [("7D", (320, 320), 20)], size=(640, 640), card_h=360, seed=3,
                               table="paper")
    blind = TableReader("standard", ReaderConfig(passes=PHOTO.passes))
    monkeypatch.setattr(blind, "detector", lambda *a, **k: [])       # it finds no card at all
    assert blind.read(image) == []
    blind.config = replace(blind.config, indices=True)
    reads = blind.read(image)
    assert [r.card for r in reads] == ["7D"]            # both its indices found: one card
    best = max(f.probability for f in indices.find(image, blind.reader))
    assert reads[0].confidence == pytest.approx(best * INDEX_SCORE ** BOX_POWER)
    assert reads[0].confidence >= _stated()
    assert reads[0].detector == 0.0
    # boxed as the card its index belongs to, its size guessed from the index's (designs differ)
    x, y, w, h = cv2.boundingRect(placed[0].corners.astype(np.float32))
    assert iou(reads[0].box, [x, y, x + w, y + h]) > 0.5


def test_a_card_found_by_one_index_counts_less_unless_its_other_corner_is_beyond_the_photo(monkeypatch):
    stated = _stated()
    # the 7 of diamonds on a white sheet, its bottom-right corner under a plain grey book
    image, placed = flat_table("standard", [("7D", (320, 300), 10)], size=(640, 640), card_h=380, seed=3,
                               table="paper")
    bottom_right = placed[0].corners[2].astype(int)
    cv2.circle(image, tuple(int(v) for v in bottom_right), 120, (90, 90, 90), -1)
    blind = TableReader("standard", ReaderConfig(passes=PHOTO.passes, indices=True, cut=True))
    monkeypatch.setattr(blind, "detector", lambda *a, **k: [])
    found = indices.find(image, blind.reader)
    assert [f.card for f in found if f.probability >= 0.9] == ["7D"]        # one index in view
    reads = blind.read(image)
    assert [r.card for r in reads] == ["7D"]
    assert reads[0].confidence == pytest.approx(found[0].probability * INDEX_SCORE ** BOX_POWER * LONE_CORNER)
    assert reads[0].confidence < stated          # how much of it shows is not known: asked for again
    # the same card with its other corner beyond the photo's edge: that index cannot show
    image, placed = flat_table("standard", [("7D", (430, 520), 0)], size=(640, 640), card_h=380, seed=3,
                               table="paper")
    found = indices.find(image, blind.reader)
    assert found and found[0].card == "7D" and found[0].other[1] > 640
    reads = blind.read(image)
    assert [r.card for r in reads] == ["7D"] and reads[0].beyond
    assert reads[0].confidence == pytest.approx(found[0].probability * INDEX_SCORE ** BOX_POWER)
    assert reads[0].confidence >= stated
    blind.config = blind.config.without("cut")      # cards cut by the photo's edge left out (--no-cut-cards)
    assert blind.read(image) == []


def test_a_card_is_read_once_where_it_reads_surest():
    from vision.reading import Read
    from vision.refine import overlap

    image, placed = flat_table("standard", [("7D", (320, 320), 20)], size=(640, 640), card_h=360, seed=3,
                               table="paper")
    reader = TableReader("standard", ReaderConfig(passes=PHOTO.passes, indices=True))
    found = max(indices.find(image, reader.reader), key=lambda f: f.probability)
    best = found.probability * INDEX_SCORE ** BOX_POWER
    corners = placed[0].corners
    # read surer elsewhere (a box off the card): a deck has one 7 of diamonds, so no second one
    sure = Read("7D", 0.9, [0, 0, 60, 80], [[0, 0], [60, 0], [60, 80], [0, 80]], 0.0, 0.9)
    assert [(r.card, r.confidence, r.box) for r in _with_indices(reader, image, [sure])] == [("7D", 0.9, sure.box)]
    # read less surely elsewhere: the card is where its index is, read as surely, and only there
    unsure = replace(sure, confidence=0.2)
    moved = _with_indices(reader, image, [unsure])
    assert [(r.card, r.confidence) for r in moved] == [("7D", pytest.approx(best))]
    assert overlap(np.asarray(moved[0].corners, np.float32), corners) > 0.5
    # read from a box on the card itself: that reading becomes as sure as its index, its box kept
    here = Read("7D", 0.2, [0, 0, 1, 1], corners.tolist(), 20.0, 0.3)
    assert [(r.card, r.confidence, r.box) for r in _with_indices(reader, image, [here])] == [
        ("7D", pytest.approx(best), [0, 0, 1, 1])]
    # and from a box over only the part of the card that holds its index (another card over the
    # rest): the same card, not a second one
    tl, tr, br, bl = found.corners        # the card the index found belongs to, its top-left first
    part = np.array([tl, tr, tr + (br - tr) * 0.35, tl + (bl - tl) * 0.35], np.float32)
    assert overlap(part, corners) < 0.5
    strip = Read("7D", 0.2, [0, 0, 2, 2], part.tolist(), 20.0, 0.3)
    assert [(r.card, r.confidence, r.box) for r in _with_indices(reader, image, [strip])] == [
        ("7D", pytest.approx(best), [0, 0, 2, 2])]
    # a box holding the index that reads the card less surely than another box: one 7 of
    # diamonds already, read where it reads surest, so neither changes
    assert [(r.card, r.confidence) for r in _with_indices(reader, image, [sure, here])] == [("7D", 0.9), ("7D", 0.2)]
    # a box on the card read as another card: the index's card is a card of its own
    wrong = Read("7H", 0.6, [0, 0, 1, 1], corners.tolist(), 20.0, 0.9)
    assert sorted(r.card for r in _with_indices(reader, image, [wrong])) == ["7D", "7H"]


def test_an_index_the_marks_miss_is_read_where_it_should_lie(monkeypatch):
    image, _ = flat_table("standard", [("7D", (320, 320), 20)], size=(640, 640), card_h=360, seed=3, table="paper")
    reader = TableReader("standard", ReaderConfig(passes=PHOTO.passes, indices=True))
    f = max(indices.find(image, reader.reader), key=lambda f: f.probability)
    assert indices.other_index(image, reader.reader, f)
    # the other index painted over with blank paper (all along the line it is looked for on:
    # the card's size is guessed): nothing there reads as the card
    covered = image.copy()
    ends = [tuple(int(v) for v in f.centre + a * (f.other - f.centre)) for a in (0.55, 1.55)]
    cv2.line(covered, ends[0], ends[1], (250, 250, 250), int(0.3 * f.height))
    assert not indices.other_index(covered, reader.reader, f)
    # the ink-mark step made to miss the other index: the card still counts as found by both
    # corners where the other index is in sight, and as one lone index where it is covered
    monkeypatch.setattr("vision.steps.indices.both_corners", lambda found, f: False)
    whole = INDEX_SCORE ** BOX_POWER
    assert [r.confidence for r in _with_indices(reader, image, []) if r.card == "7D"] == [
        pytest.approx(f.probability * whole)]
    g = max(indices.find(covered, reader.reader), key=lambda g: g.probability)
    assert [r.confidence for r in _with_indices(reader, covered, []) if r.card == "7D"] == [
        pytest.approx(g.probability * whole * LONE_CORNER)]


def test_an_index_inside_a_card_read_as_that_card_makes_no_second_card():
    image, _ = flat_table("standard", [("7D", (330, 300), 20), ("KS", (120, 110), -10)], size=(640, 640),
                          card_h=300, seed=3)
    plain = TableReader("standard", ReaderConfig(passes=PHOTO.passes)).read(image)
    looked = TableReader("standard", ReaderConfig(passes=PHOTO.passes, indices=True)).read(image)
    stated = _stated()
    assert sorted(r.card for r in plain if r.confidence >= stated) == ["7D", "KS"]
    assert sorted(r.card for r in looked if r.confidence >= stated) == ["7D", "KS"]
    for card in ("7D", "KS"):
        assert max(r.confidence for r in looked if r.card == card) >= max(r.confidence for r in plain if r.card == card)


def test_other_decks_are_not_looked_at_for_a_standard_index():
    on = ReaderConfig(indices=True)
    assert not index_step.runs(Context(TableReader("woolly", on), C.gate))
    assert index_step.runs(Context(TableReader("standard", on), C.gate))


def test_detect_looks_for_indices_unless_told_not_to(tmp_path, monkeypatch, capsys):
    from web import cli
    import vision.reader

    made = []
    monkeypatch.setattr(vision.reader.TableReader, "__init__", _made_with(vision.reader.TableReader.__init__, made))
    image, _ = flat_table("standard", [("7D", (330, 300), 20)], size=(640, 480), card_h=300, seed=3)
    cv2.imwrite(str(tmp_path / "t.png"), image)
    assert cli.main(["detect", str(tmp_path / "t.png"), "--json"]) == 0
    assert cli.main(["detect", str(tmp_path / "t.png"), "--json", "--no-indices"]) == 0
    assert [c.indices for c in made] == [True, False]
    assert [json.loads(line)["cards"][0]["card"] for line in capsys.readouterr().out.splitlines()] == ["7D", "7D"]


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/realcards is not beside this checkout")
def test_a_real_card_on_a_white_sheet_is_read_only_from_its_index():
    # phone/: a 5 of diamonds on a glossy white sheet, in black and white, its edges lost in glare
    image = cv2.imread(str(REAL / "phone" / "images" / "IMG_20220921_201345_jpg.jpg"))
    config = ReaderConfig(passes=PHOTO.passes, unstretch=True, cut=True, lean=True)
    stated = _stated()
    assert "5D" not in [r.card for r in TableReader("standard", config).read(image) if r.confidence >= stated]
    assert "5D" in [r.card for r in TableReader("standard", replace(config, indices=True)).read(image)
                    if r.confidence >= stated]
