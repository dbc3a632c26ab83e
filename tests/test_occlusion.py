"""Cards that others cover: a strip (what shows of a card in an overlapping row) is widened to the
whole card under the cards on it, and read from the one index corner that shows."""
import numpy as np
import pytest

from vision import occlusion
from vision.detector import Detection
from vision.reader import TableReader
from vision.synth.flat import flat_table


def quad(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def test_covered_measures_the_share_under_other_boxes():
    region = quad(0, 0, 100, 100)
    assert occlusion.covered(region, []) == 0
    assert occlusion.covered(region, [quad(50, -10, 200, 200)]) == pytest.approx(0.5, abs=0.03)
    assert occlusion.covered(region, [quad(-5, -5, 105, 105)]) == pytest.approx(1.0, abs=0.01)
    # two boxes over the same part count once
    assert occlusion.covered(region, [quad(50, -10, 200, 200), quad(60, 0, 200, 100)]) == pytest.approx(0.5, abs=0.03)


def test_a_strip_is_widened_to_a_whole_card_under_the_card_that_covers_it():
    strip = quad(100, 100, 160, 380)                   # 60 x 280: far narrower than a card
    cover = quad(160, 100, 300, 380)                   # what shows of the next card of the row, on top
    cards = occlusion.whole_cards(strip, [cover])
    assert len(cards) == 1
    card = cards[0]
    x0, y0 = card.min(0)
    x1, y1 = card.max(0)
    assert (x0, y0, y1) == pytest.approx((100, 100, 380), abs=0.5)
    assert x1 - x0 == pytest.approx(280 * occlusion.CARD_RATIO, abs=0.5)     # a card's shape, under the cover
    assert occlusion.whole_cards(strip, []) == []                          # nothing covers it: not widened
    assert occlusion.whole_cards(strip, [quad(-300, 100, 100, 380)]) != []  # covered on the other side
    assert occlusion.whole_cards(quad(100, 100, 300, 380), [cover]) == []   # a whole card is no strip


def test_the_corner_that_shows_is_the_one_in_the_strip():
    strip = quad(100, 100, 160, 380)
    card = occlusion.whole_cards(strip, [quad(160, 100, 300, 380)])[0]
    top_left, bottom_right = occlusion.corner_centres(card, "standard")
    shown = occlusion.showing_corner(card, strip, "standard")
    assert shown is not None
    inside = (top_left, bottom_right)[shown]
    assert 100 <= inside[0] <= 160 and 100 <= inside[1] <= 380
    assert not 100 <= (top_left, bottom_right)[1 - shown][0] <= 160


@pytest.fixture(scope="module")
def reader():
    return TableReader("standard")


ROW = ["9C", "QH", "5S", "KD"]


@pytest.mark.parametrize("angle", [0, 180])
def test_each_card_of_an_overlapping_row_is_read_from_its_strip(reader, angle):
    """A hand laid down in a row, each card slid 30% of its width from the one below (the last on
    top): given the boxes of what shows of each card, as the detector is trained to give them, every
    card is read right and its box stays what shows."""
    h, w = 300, 300 * occlusion.CARD_RATIO
    step = 0.3 * w
    xs = [300 + k * step for k in range(len(ROW))]
    image, placed = flat_table("standard", [(c, (x, 360), angle) for c, x in zip(ROW, xs)], card_h=h, seed=4)
    shows = [quad(x - w / 2, 360 - h / 2, x - w / 2 + step, 360 + h / 2) for x in xs[:-1]]
    shows.append(placed[-1].corners)
    reads = reader.identify(image, [Detection("card", 0.9, q, float(angle)) for q in shows])
    assert [r.card for r in reads] == ROW
    assert all(r.confidence >= 0.5 for r in reads), [(r.card, round(r.confidence, 2)) for r in reads]
    for r, q in zip(reads[:-1], shows):
        assert r.box == pytest.approx([*q.min(0), *q.max(0)], abs=2)


def test_a_column_slid_along_the_cards_length_is_read_too(reader):
    h = 300
    w = h * occlusion.CARD_RATIO
    step = 0.3 * h
    ys = [150 + k * step for k in range(3)]
    codes = ["7D", "JS", "4H"]
    image, placed = flat_table("standard", [(c, (640, y), 0) for c, y in zip(codes, ys)], card_h=h, seed=5)
    shows = [quad(640 - w / 2, y - h / 2, 640 + w / 2, y - h / 2 + step) for y in ys[:-1]] + [placed[-1].corners]
    reads = reader.identify(image, [Detection("card", 0.9, q, 0.0) for q in shows])
    assert [r.card for r in reads] == codes
    assert all(r.confidence >= 0.5 for r in reads), [(r.card, round(r.confidence, 2)) for r in reads]


def test_a_narrow_card_nothing_covers_is_not_read_as_a_strip(reader):
    """A lone strip-shaped box (a card cut by the frame's edge, a card seen edge-on) has nothing to
    widen under: its reading is the reader's as before."""
    h = 300
    w = h * occlusion.CARD_RATIO
    image, _ = flat_table("standard", [("QH", (640, 360), 0)], card_h=h, seed=6)
    strip = quad(640 - w / 2, 360 - h / 2, 640 - w / 2 + 0.3 * w, 360 + h / 2)
    assert occlusion.whole_cards(strip, []) == []
    before = reader.identify(image, [Detection("card", 0.9, strip, 0.0)])[0]
    assert before.confidence < 0.5 or before.card == "QH"
