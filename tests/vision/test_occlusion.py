"""Cards that others cover: a strip (what shows of a card in an overlapping row) is widened to the
whole card under the cards on it, and read from the one index corner that shows."""
import numpy as np
import pytest

from vision import occlusion
from vision.config import ReaderConfig
from vision.detector import Detection
from vision.reader import TableReader
from vision.steps import Context
from vision.synth.flat import flat_table


def read_strips(reader, image, detections):
    """The boxes read as the reader reads them, up to its step ``strips`` (a strip read as the card
    it is part of), one reading per box in their order (before ``settle``)."""
    return reader.run(image, detections, Context(reader, reader.config.gate), "identify", "strips")


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
    reads = read_strips(reader, image, [Detection("card", 0.9, q, float(angle)) for q in shows])
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
    reads = read_strips(reader, image, [Detection("card", 0.9, q, 0.0) for q in shows])
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
    before = read_strips(reader, image, [Detection("card", 0.9, strip, 0.0)])[0]
    assert before.confidence < 0.5 or before.card == "QH"


def test_the_area_beyond_the_frame_covers_like_a_card():
    beyond = occlusion.outside(640, 480)
    assert occlusion.covered(quad(600, 100, 700, 200), beyond) == pytest.approx(0.6, abs=0.03)
    assert occlusion.covered(quad(-50, -50, 50, 50), beyond) == pytest.approx(0.75, abs=0.03)
    assert occlusion.covered(quad(100, 100, 200, 200), beyond) == 0


def test_a_card_cut_by_the_frame_is_lengthened_beyond_it():
    w = 200
    h = w / occlusion.CARD_RATIO
    beyond = occlusion.outside(640, 480)

    def boxes(cards):
        return sorted([round(float(v)) for v in (*c.min(0), *c.max(0))] for c in cards)
    # the bottom 240 pixels of an upright card cut by the top edge (or the bottom, or the left one)
    assert boxes(occlusion.cut_cards(quad(100, 0, 100 + w, 240), beyond)) == [[100, round(240 - h), 100 + w, 240]]
    assert boxes(occlusion.cut_cards(quad(100, 240, 100 + w, 480), beyond)) == [[100, 240, 100 + w, round(240 + h)]]
    assert boxes(occlusion.cut_cards(quad(0, 100, 240, 100 + w), beyond)) == [[round(240 - h), 100, 240, 100 + w]]
    # its bottom 120 pixels (wider than long, not a strip): its width is the card's, lengthened
    # across it beyond the edge it touches, but not from a box just short of the edge
    assert boxes(occlusion.cut_cards(quad(100, 0, 100 + w, 120), beyond)) == [[100, round(120 - h), 100 + w, 120]]
    assert boxes(occlusion.cut_cards(quad(0, 100, 120, 100 + w), beyond)) == [[round(120 - h), 100, 120, 100 + w]]
    assert occlusion.cut_cards(quad(100, 30, 100 + w, 150), beyond) == []
    assert occlusion.cut_cards(quad(100, 0, 100 + w, 240), []) == []                  # nothing hides the rest
    assert occlusion.cut_cards(quad(100, 100, 100 + w, 340), beyond) == []             # inside the frame
    assert occlusion.cut_cards(quad(100, 0, 100 + w, h), beyond) == []                 # a whole card


def test_a_corner_shows_only_when_most_of_its_index_region_is_in_the_strip():
    card = quad(100, 100, 300, 380)                                            # 200 x 280, upright
    top_left, _ = occlusion.index_regions(card, "standard")
    assert [*top_left.min(0), *top_left.max(0)] == pytest.approx([100, 100, 146, 186.8], abs=0.5)
    assert occlusion.showing_corner(card, quad(100, 100, 300, 200), "standard") == 0
    # the strip holds the region's middle but cuts the index in half: not read from
    assert occlusion.showing_corner(card, quad(100, 143, 300, 260), "standard") is None


@pytest.fixture(scope="module")
def cut_reader():
    return TableReader("standard", ReaderConfig(cut=True))


H = 300
W = H * occlusion.CARD_RATIO


@pytest.mark.parametrize("code", ["8S", "QH"])
@pytest.mark.parametrize("edge", ["top", "bottom", "left", "right"])
@pytest.mark.parametrize("angle", [0, 90, 180])
@pytest.mark.parametrize("share", [0.3, 0.5])
def test_a_card_cut_by_the_image_edge_is_read_with_cut(reader, cut_reader, code, edge, angle, share):
    """A card with only 30% or 50% of it inside the image (cut across its length or along it, as
    it lies: half a card cut across its length is wider than long), boxed where it shows, as the
    detector is trained to box it: with ``cut`` it is read from the one index corner inside the
    image, and its box stays what shows. Without, a 30% box is read as if it were a whole card, the
    corner regions in the wrong place (half a card cut along its length is a strip whose corner
    regions partly hold the index, and is sometimes read without ``cut`` too)."""
    across = W if angle in (0, 180) else H               # the card's extent across a left or right edge
    down = H if angle in (0, 180) else W
    centre = {"left": (share * across - across / 2, 360), "right": (1280 - share * across + across / 2, 360),
              "top": (640, share * down - down / 2), "bottom": (640, 720 - share * down + down / 2)}[edge]
    image, placed = flat_table("standard", [(code, centre, angle)], card_h=H, seed=7)
    x0, y0 = np.maximum(placed[0].corners.min(0), 0)
    x1, y1 = np.minimum(placed[0].corners.max(0), (1280, 720))
    shows = [Detection("card", 0.9, quad(x0, y0, x1, y1), float(angle))]
    read = read_strips(cut_reader, image, shows)[0]
    assert (read.card, read.box) == (code, pytest.approx([x0, y0, x1, y1], abs=2))
    assert read.confidence >= 0.6                         # over the stated threshold
    plain = read_strips(reader, image, shows)[0]
    # read as a card reaching past the edge wherever that reads surer than the box as it is
    assert read.beyond is (read.confidence > plain.confidence)
    if share == 0.3:
        assert plain.card != code or plain.confidence < 0.5
