"""The card reader at run time: geometry, the committed ONNX models, the `warref detect` contract."""
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import geometry
from vision.config import LIVE, PHOTO, ReaderConfig
from vision.errors import BadImage, ModelMissing
from vision.lab.metrics import iou
from vision.reader import MODELS, TableReader, load_image
from vision.synth.flat import flat_table

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LAYOUT = [((300, 360), 10), ((560, 340), -25), ((820, 380), 95), ((1050, 330), 180)]
HANDS = {"standard": ["QH", "7S", "AD", "10C"], "woolly": ["8G", "12B", "STEAL", "WAR"],
         "namikopy": ["3", "11", "MALLARD", "7"]}
C = ReaderConfig()                  # the reader's default settings (its weights and levels)


def _rect(cx, cy, w, h, angle):
    return cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32)


@pytest.mark.parametrize("angle", [0, 17, 45, 90, 133, 180, 271])
def test_portrait_starts_on_a_short_edge_and_goes_clockwise(angle):
    pts = _rect(200, 150, 50, 70, angle)
    np.random.default_rng(angle).shuffle(pts)
    for flip in (False, True):
        p = geometry.portrait(pts, flip)
        edges = np.linalg.norm(p - np.roll(p, -1, 0), axis=1)
        assert edges[0] == pytest.approx(50, abs=0.5) and edges[1] == pytest.approx(70, abs=0.5)
        a, b = p[1] - p[0], p[2] - p[1]
        cross = a[0] * b[1] - a[1] * b[0]
        assert cross > 0                      # clockwise on screen, where y points down
    assert not np.allclose(geometry.portrait(pts), geometry.portrait(pts, True))


def test_index_view_reads_the_same_card_upright_or_upside_down():
    image, placed = flat_table("standard", [("9C", (400, 300), 0)], size=(800, 600))
    upright = geometry.view_of(image, placed[0].corners, "standard")
    turned = geometry.view_of(cv2.rotate(image, cv2.ROTATE_180),
                              np.array([[799, 599]]) - placed[0].corners, "standard")
    assert upright.shape == (geometry.VIEW_SIZE, geometry.VIEW_SIZE, 3)
    assert np.abs(upright.astype(int) - turned.astype(int)).mean() < 12


def test_corner_views_show_each_corner_alone_and_the_same_turned_round():
    image, placed = flat_table("standard", [("9C", (400, 300), 20)], size=(800, 600))
    top, bottom = geometry.corner_views(image, placed[0].corners, "standard")
    both = geometry.view_of(image, placed[0].corners, "standard")
    assert top.shape == bottom.shape == both.shape
    half = geometry.VIEW_SIZE // 2
    assert np.abs(top[:, :half].astype(int) - top[:, half:].astype(int)).mean() < 2      # one corner, twice
    other, placed_other = flat_table("standard", [("KH", (400, 300), 20)], size=(800, 600))
    other_top = geometry.corner_views(other, placed_other[0].corners, "standard")[0]
    # a clean card prints both corners alike: far closer to each other than to another card's corner
    assert np.abs(top.astype(int) - bottom.astype(int)).mean() < 0.5 * np.abs(top.astype(int) - other_top.astype(int)).mean()
    turned = geometry.corner_views(cv2.rotate(image, cv2.ROTATE_180),
                                   np.array([[799, 599]]) - placed[0].corners, "standard")
    for seen, again in zip((top, bottom), turned):                        # the frame turned round: same views
        assert np.abs(seen.astype(int) - again.astype(int)).mean() < 12
    # a corner covered by another card spoils only its own view
    covered = image.copy()
    bottom_right = geometry.portrait(placed[0].corners)[2]
    x, y = bottom_right.astype(int)
    cv2.circle(covered, (x, y), 45, (40, 90, 160), -1)
    top2, bottom2 = geometry.corner_views(covered, placed[0].corners, "standard")
    assert np.abs(top2.astype(int) - top.astype(int)).mean() < 2
    assert np.abs(bottom2.astype(int) - bottom.astype(int)).mean() > 20


@pytest.fixture(scope="module")
def readers():
    return {deck: TableReader(deck) for deck in HANDS}


@pytest.mark.parametrize("deck", list(HANDS))
def test_a_rendered_table_is_read_correctly(readers, deck):
    cards = [(code, at, angle) for code, (at, angle) in zip(HANDS[deck], LAYOUT)]
    image, placed = flat_table(deck, cards, seed=3)
    reads = [r for r in readers[deck].read(image) if r.confidence >= 0.5]
    assert sorted(r.card for r in reads) == sorted(HANDS[deck])
    for r in reads:
        truth = next(p for p in placed if p.card == r.card)
        box = [*truth.corners.min(0), *truth.corners.max(0)]
        assert iou(r.box, box) > 0.75


def test_backs_are_found_and_called_back(readers):
    image, _ = flat_table("standard", [("BACK", (400, 360), 30), ("5H", (800, 360), -10)], seed=5)
    reads = [r for r in readers["standard"].read(image) if r.confidence >= 0.5]
    assert sorted(r.card for r in reads) == ["5H", "BACK"]


def test_overlapping_cards_are_each_read_not_merged_into_one(readers):
    # two overlapping cards run together into one pale shape; each must still be read on its own
    image, placed = flat_table("standard", [("9C", (560, 330), 0), ("KD", (630, 390), 0)], seed=6)
    reads = readers["standard"].read(image)
    for truth in placed:
        box = [*truth.corners.min(0), *truth.corners.max(0)]
        assert any(iou(r.box, box) > 0.75 for r in reads), f"{truth.card} not found on its own"
    sure = [r for r in reads if r.confidence >= 0.5]
    assert "KD" in [r.card for r in sure]                   # the card on top, every corner showing
    assert all(r.card in ("9C", "KD") for r in sure)        # nothing confident is wrong
    merged = [*np.min([p.corners.min(0) for p in placed], 0), *np.max([p.corners.max(0) for p in placed], 0)]
    assert not any(iou(r.box, merged) > 0.75 for r in sure)


def test_one_card_read_twice_is_kept_once_whichever_box_holds_the_other():
    from vision.reading import Read, one_per_card

    def read(card, confidence, x0, y0, x1, y1):
        return Read(card, confidence, [x0, y0, x1, y1], [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], 0.0, 0.9)
    card = read("JH", 0.9, 300, 30, 470, 243)
    around = read("JH", 0.57, 240, 0, 500, 290)          # a box over it and the table around it (IoU 0.48)
    part = read("JH", 0.6, 300, 30, 400, 150)           # a box over part of it
    assert one_per_card([around, card]) == [card]
    assert one_per_card([part, card]) == [card]
    other = read("QS", 0.57, 240, 0, 500, 290)          # another card read there: both stay
    assert one_per_card([other, card]) == [card, other]
    sure_around = read("JH", 0.95, 240, 0, 500, 290)    # the surer reading stays, whichever box it is
    assert one_per_card([card, sure_around]) == [sure_around]


def test_a_square_photo_s_shape_is_chosen_by_the_cards_it_shows_whole():
    """Readings of cards that reach beyond the photo's edge (pieces, read from one corner) do not
    count towards the shape a square photo is read in: with them, the shape with the most pieces
    read could win and bring its pieces' mistakes along."""
    from vision.reading import Read
    from vision.steps.unstretch import weight
    whole = Read("QH", 0.9, [0, 0, 10, 10], [[0, 0], [10, 0], [10, 10], [0, 10]], 0.0, 0.9)
    piece = Read("7S", 0.66, [0, 0, 10, 10], [[0, 0], [10, 0], [10, 10], [0, 10]], 0.0, 0.9, [], True)
    unsure = Read("2C", 0.4, [0, 0, 10, 10], [[0, 0], [10, 0], [10, 10], [0, 10]], 0.0, 0.9)
    assert weight([whole, piece, unsure], 0.6) == pytest.approx(0.9)


def test_boxes_inside_a_card_read_as_not_a_card_and_are_dropped(readers):
    from vision.detector import Detection
    from vision.train.reader_negatives import inside_card

    reader, rng, said = readers["standard"], np.random.default_rng(11), []
    for code in ["10D", "KS", "7H", "QD"]:              # close-ups: pips and court pictures are large
        image, placed = flat_table("standard", [(code, (640, 360), 15)], card_h=600, seed=9)
        boxes = [q for q in (inside_card(placed[0].corners, rng) for _ in range(8)) if q is not None]
        said += [r.card for r in reader.identify(image, [Detection("card", 0.9, q, 0.0) for q in boxes])]
        assert [r.card for r in reader.read(image) if r.confidence >= 0.5] == [code]
    assert said.count("NONE") >= 0.9 * len(said), said


def test_a_back_inside_a_much_larger_box_is_a_pip_and_a_back_on_a_pile_is_kept(readers):
    # close-up photos: the detector calls a big red diamond pip a back, while the reader cannot read
    # the card around it; a stacked pile is boxed whole around the back lying on top of it
    from vision.detector import Detection
    from vision.reader import Read

    said = {"card": ("NONE", 0.6), "pip": ("BACK", 0.9), "pile": ("NONE", 0.7), "top": ("BACK", 0.85)}
    boxes = {"card": _rect(400, 360, 420, 580, 3), "pip": _rect(420, 300, 70, 70, 45),
             "pile": _rect(900, 400, 260, 420, 10), "top": _rect(900, 360, 200, 280, 10)}

    class Stub(TableReader):
        def identify(self, image, detections, pool=None):
            return [Read(*said[d.kind], [int(v) for v in (*d.corners.min(0), *d.corners.max(0))],
                         d.corners.tolist(), 0.0, d.score) for d in detections]

    stub = Stub("standard", detector=lambda image, threshold, fill, contrast: [
        Detection(name, 0.8, corners, 0.0) for name, corners in boxes.items()])
    reads = stub.read(np.full((720, 1280, 3), 60, np.uint8))
    assert [(r.card, r.confidence) for r in reads] == [("BACK", 0.85)]          # the back on the pile


def test_the_photo_pass_finds_cards_at_their_place(readers):
    fill = min(f for f, _ in PHOTO.passes)
    assert fill < 1 and any(contrast for _, contrast in PHOTO.passes)
    cards = [(code, at, angle) for code, (at, angle) in zip(HANDS["standard"], LAYOUT)]
    image, placed = flat_table("standard", cards, seed=3)
    for contrast in (False, True):                    # the frame shown at 40%, as it is and contrasted
        found = readers["standard"].detector(image, 0.5, fill=fill, contrast=contrast)
        for truth in placed:
            box = [*truth.corners.min(0), *truth.corners.max(0)]
            assert any(iou([*d.corners.min(0), *d.corners.max(0)], box) > 0.6 for d in found), truth.card
    photo = TableReader("standard", ReaderConfig(passes=PHOTO.passes))
    reads = [r for r in photo.read(image) if r.confidence >= 0.5]
    assert sorted(r.card for r in reads) == sorted(HANDS["standard"])           # one card each, no doubles


def test_a_photo_s_small_cards_are_looked_at_again_close_up(readers):
    # four cards 90 pixels tall in a 2400x1800 photo: 12 of the detector's 320 pixels, found but
    # not read surely; cropped around the first ones found, each fills the detector's view
    cards = [(code, (800 + i * 99, 800 + 30 * i), 10 * i) for i, code in enumerate(HANDS["standard"])]
    image, placed = flat_table("standard", cards, size=(2400, 1800), card_h=90, seed=2)
    far = TableReader("standard", ReaderConfig(passes=PHOTO.passes, again=0))
    assert [r for r in far.read(image) if r.confidence >= 0.6] == []
    near = TableReader("standard", ReaderConfig(passes=PHOTO.passes, zoom=PHOTO.zoom, again=0))
    reads = [r for r in near.read(image) if r.confidence >= 0.6]
    assert sorted(r.card for r in reads) == sorted(HANDS["standard"])           # one card each, no doubles
    for r in reads:
        truth = next(p.corners for p in placed if p.card == r.card)
        assert iou(r.box, [*truth.min(0), *truth.max(0)]) > 0.7                 # in the photo's pixels


def _small_cards(seed: int = 3):
    cards = [(code, (800 + i * 99, 800 + 30 * i), 10 * i) for i, code in enumerate(HANDS["standard"])]
    return flat_table("standard", cards, size=(2400, 1800), card_h=90, seed=seed)


def test_cards_read_unsure_are_looked_at_again_on_a_live_table_too(readers, monkeypatch):
    # the same four small cards through one detector pass, as a live table reads a frame: some
    # are read unsure; the areas around them, cropped, show cards the frame did not. (Which scene
    # leaves a card unsure moves with each training, so it is the first of eight seeds that does.)
    import vision.steps.again as again_step

    calls, crops = [], []
    cut = again_step.crops
    monkeypatch.setattr(again_step, "crops", lambda *a: (crops.append(cut(*a)), crops[-1])[1])
    for seed in range(3, 11):
        once = TableReader("standard", LIVE.without("again"))        # a new table: nothing remembered
        assert once.config == ReaderConfig(again=0, reuse=True)
        stated = once.reader.threshold
        image, placed = _small_cards(seed)
        reads = once.read(image)
        if any(C.again_from <= r.confidence < stated for r in reads):
            break
    else:
        raise AssertionError("in none of 8 scenes does one pass read a small card unsure")
    before = [r for r in reads if r.confidence >= stated]
    assert len(before) < len(HANDS["standard"])
    live = TableReader("standard", LIVE)
    assert live.config.reuse and live.config.again == C.again
    looks = live.detector
    live.detector = lambda *a, **k: (calls.append(a[0].shape[:2]), looks(*a, **k))[1]
    first = [r for r in live.read(image) if r.confidence >= stated]
    assert len(first) > len(before) and len(calls) >= 2 and all(c[0] < 900 for c in calls[1:])   # the crops: a fraction of the frame
    for r in first:
        if r.card in {b.card for b in before}:
            continue                                                                   # the frame's own box
        truth = next(p.corners for p in placed if p.card == r.card)                   # each read as the card it is,
        assert iou(r.box, [*truth.min(0), *truth.max(0)]) > 0.5                         # where it lies
        # (0.5: the box matching its card as edje/'s are scored; the detector installed 2026-12-07 boxes a
        # neighbour that a look's crop cuts as the part the crop shows, and that surer box stays: a rule
        # leaving such boxes out lost 4 right readings on the real photos, journal 2026-12-07-handheld-boxes)
    # the next frame, the same through a noisy camera: the crops are not looked at again, and
    # what was found in them is kept (a box that the noise lifts over again_from may get a look of
    # its own: one more detector run for each crop that is new)
    looked, calls[:], crops[:] = crops[-1], [], []
    noisy = np.clip(image + np.random.default_rng(1).normal(0, 3, image.shape).round(), 0, 255).astype(np.uint8)
    again = [r for r in live.read(noisy) if r.confidence >= stated]
    assert sorted(r.card for r in again) == sorted(r.card for r in first)
    new = [c for c in crops[-1] if all(iou(c, b) < C.reuse_same for b in looked)]
    assert len(calls) == 1 + len(new)


def test_only_cards_read_unsure_are_looked_at_again_and_a_live_table_remembers_the_look():
    from vision.detector import Detection
    from vision.reader import Read

    # (card read, confidence, box): unsure is under the reader's ``sure``, 0.6
    said = {0.91: ("QH", 0.9, _rect(200, 200, 50, 70, 0)),                # sure: no look
            0.92: ("7S", 0.4, _rect(500, 300, 50, 70, 0)),                # unsure: looked at
            0.93: ("8D", 0.35, _rect(505, 310, 30, 40, 0)),               # unsure, inside that crop: none of its own
            0.94: ("BACK", 0.4, _rect(900, 200, 50, 70, 0)),              # a back: no look
            0.95: ("2C", C.again_from / 2, _rect(1100, 500, 50, 70, 0)),  # too faint to look at
            0.96: ("KD", 0.3, _rect(300, 600, 50, 70, 0)),                # unsure: looked at, after the 7S
            0.97: ("AH", 0.2, _rect(800, 600, 50, 70, 0))}                # unsure: looked at last
    shapes = []

    class Stub(TableReader):
        def identify(self, image, detections, pool=None):
            return [Read(said[d.score][0], said[d.score][1], [int(v) for v in (*d.corners.min(0), *d.corners.max(0))],
                         d.corners.tolist(), 0.0, d.score) for d in detections]

    def detector(image, threshold, fill=1.0, contrast=False):
        shapes.append(image.shape[:2])
        return [Detection("card", score, box, 0.0) for score, (_, _, box) in said.items()] if image.shape[0] == 720 else []

    frame = np.full((720, 1280, 3), 90, np.uint8)
    margin = C.again_margin * 70                        # each box's longer side
    crop = (round(70 + 2 * margin), round(50 + 2 * margin))
    Stub("standard", ReaderConfig(again=4), detector=detector).read_as_is(frame)
    assert shapes[1:] == [crop] * 3                     # the 7S, the KD and the AH
    shapes.clear()
    reader = Stub("standard", ReaderConfig(again=2, reuse=True), detector=detector)
    reader.read_as_is(frame)
    assert shapes[1:] == [crop] * 2                     # the two least unsure: the 7S, then the KD
    # the next frame, nothing changed: the looks are remembered, only the frame is looked at
    shapes.clear()
    reader.read_as_is(frame)
    assert len(shapes) == 1
    # something moves inside the KD's crop: that crop, and only it, is looked at again
    shapes.clear()
    cv2.rectangle(frame, (280, 570), (320, 630), (250, 250, 250), -1)
    reader.read_as_is(frame)
    assert len(shapes) == 2
    # without ``again``, or with every card read surely, there is no second look
    shapes.clear()
    Stub("standard", ReaderConfig(again=0), detector=detector).read_as_is(frame)
    assert len(shapes) == 1
    said.update({k: (card, 0.9, box) for k, (card, _, box) in said.items()})
    Stub("standard", ReaderConfig(again=4), detector=detector).read_as_is(frame)
    assert len(shapes) == 2
    # an unsure card filling the frame: its crop is the whole frame, which the first look saw
    said.clear()
    said[0.91] = ("QH", 0.4, _rect(640, 360, 1000, 600, 0))
    shapes.clear()
    Stub("standard", ReaderConfig(again=4), detector=detector).read_as_is(frame)
    assert len(shapes) == 1
    # unsure is under the reader's ``sure`` (the standard deck's 0.6), not its stated threshold
    # (0.5): a card read between the two is looked at too
    said[0.91] = ("QH", 0.55, _rect(640, 360, 50, 70, 0))
    stub = Stub("standard", ReaderConfig(again=4), detector=detector)
    assert stub.reader.threshold < 0.55 < stub.reader.sure
    shapes.clear()
    stub.read_as_is(frame)
    assert len(shapes) == 2
    stub.reader.sure = stub.reader.threshold
    shapes.clear()
    stub.read_as_is(frame)
    assert len(shapes) == 1


def test_zoom_crops_around_the_surest_cards_only_once_each():
    from vision.detector import Detection

    boxes = [("card", 0.9, _rect(400, 300, 50, 70, 0)), ("card", 0.8, _rect(410, 305, 40, 60, 5)),   # inside the first crop
             ("back", 0.85, _rect(900, 300, 50, 70, 0)), ("card", C.zoom_from - 0.01, _rect(1200, 600, 50, 70, 0)),
             ("card", 0.7, _rect(600, 500, 50, 70, 0)), ("card", 0.6, _rect(200, 600, 50, 70, 0))]
    shapes = []

    def detector(image, threshold, fill=1.0, contrast=False):
        shapes.append(image.shape[:2])
        return [Detection(kind, score, corners, 0.0) for kind, score, corners in boxes] if len(shapes) == 1 else []

    frame = np.zeros((720, 1280, 3), np.uint8)
    TableReader("standard", ReaderConfig(zoom=2, again=0), detector=detector).read_as_is(frame)
    margin = C.zoom_margin * 70                         # each box's longer side
    assert shapes[1:] == [(round(70 + 2 * margin), round(50 + 2 * margin))] * 2    # the 0.9 card and the 0.7 one
    shapes.clear()
    TableReader("standard", ReaderConfig(again=0), detector=detector).read_as_is(frame)
    assert len(shapes) == 1                             # no zoom: one look


def _squeezed_photo(code):
    """A 9:16 photo of one upright card, stretched to a square as labelling tools export photos:
    the card now looks wider than tall."""
    image, placed = flat_table("standard", [(code, (270, 480), 0)], size=(540, 960), card_h=420, seed=5)
    return cv2.resize(image, (540, 540), interpolation=cv2.INTER_AREA), placed[0].corners * [1, 540 / 960]


@pytest.mark.parametrize("code", ["7S", "10C"])
def test_a_photo_stretched_to_a_square_is_read_stretched_back(readers, code):
    photo, truth = _squeezed_photo(code)
    assert not geometry.squarish(truth) and np.ptp(truth[:, 0]) > np.ptp(truth[:, 1])    # wider than tall
    as_is = TableReader("standard", ReaderConfig(passes=PHOTO.passes))
    # read as it is, the wrong edge on top: unsure (the close-ups member reads some such cards, 0.61
    # for this 10 of clubs); stretched back: sure
    assert not [r for r in as_is.read(photo) if r.card == code and r.confidence >= 0.7]
    unstretched = TableReader("standard", ReaderConfig(passes=PHOTO.passes, unstretch=True))
    reads = [r for r in unstretched.read(photo) if r.confidence >= unstretched.reader.threshold]
    assert [r.card for r in reads] == [code] and reads[0].confidence >= 0.8              # one card, no doubles
    assert iou(reads[0].box, [*truth.min(0), *truth.max(0)]) > 0.75                     # in the square's pixels
    assert np.allclose(np.ptp(np.array(reads[0].corners), 0), np.ptp(truth, 0), rtol=0.1)


def test_only_a_square_image_is_read_stretched_back(readers):
    cards = [(code, at, angle) for code, (at, angle) in zip(HANDS["standard"], LAYOUT)]
    image, _ = flat_table("standard", cards, seed=3)
    unstretched = TableReader("standard", ReaderConfig(unstretch=True))
    assert [r.as_json() for r in unstretched.read(image)] == [r.as_json() for r in readers["standard"].read(image)]


def test_an_empty_table_has_no_cards(readers):
    image, _ = flat_table("standard", [], seed=8)
    assert [r for r in readers["standard"].read(image) if r.confidence >= 0.5] == []


def test_detect_json_contract_and_bad_files(tmp_path):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    fixture = FIXTURES / "table-standard.jpg"
    run = subprocess.run([sys.executable, "-m", "web.cli", "detect", str(fixture), str(broken), str(tmp_path / "gone.png"),
                          "--deck", "standard", "--json", "--threshold", "0.5", "--annotate", str(tmp_path / "boxed")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1                              # some files could not be read ...
    assert "broken.jpg: not a readable image" in run.stderr
    assert "gone.png: no such image file" in run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(lines) == 1                                  # ... the good one was still read
    line = lines[0]
    assert line["image"] == str(fixture) and (line["width"], line["height"]) == (1280, 720)
    truth = json.loads((FIXTURES / "table-standard.json").read_text())
    assert sorted(c["card"] for c in line["cards"]) == sorted(truth["cards"])
    for card in line["cards"]:
        x0, y0, x1, y1 = card["box"]
        assert 0 <= x0 < x1 <= 1280 and 0 <= y0 < y1 <= 720
        assert 0.5 <= card["confidence"] <= 1 and len(card["corners"]) == 4
    assert (tmp_path / "boxed" / "table-standard.jpg").exists()


def _detect_json(capsys, *args) -> list[dict]:
    """`warref detect ... --json` run in this process (its start-up and imports once, not per run;
    the command's output as a process gives it is test_detect_json_contract_and_bad_files'): each
    photo's JSON line."""
    from web import cli         # the command line: only where a test runs it, as the tests below import it
    capsys.readouterr()
    code = cli.main(["detect", *map(str, args), "--json"])
    said = capsys.readouterr()
    assert code == 0, said.err
    return [json.loads(line) for line in said.out.splitlines()]


def test_detect_reads_a_stretched_square_photo_unless_told_as_is(tmp_path, capsys):
    photo, _ = _squeezed_photo("7S")
    cv2.imwrite(str(tmp_path / "square.png"), photo)

    def cards(*extra):
        return [(c["card"], c["confidence"]) for c in _detect_json(capsys, tmp_path / "square.png", *extra)[0]["cards"]]

    (card, sure), = cards()
    assert card == "7S" and sure >= 0.8
    # as it is, the wrong edge on top: no corner shows an index, and only the face reader reads it,
    # unsure (a photo leans on its face reader where the corners read nothing: about 0.5 here)
    assert all(c != "7S" or p < 0.6 for c, p in cards("--as-is"))


def test_detect_reads_a_card_cut_by_the_photos_edge_unless_told_not_to(tmp_path, capsys):
    """The 8 of spades lies mostly above the photo's top edge, 30% of it inside: `warref detect`
    reads it from its one index corner in the photo, and leaves it out with --no-cut-cards (also
    where it finds it by that index alone: vision/indices.py)."""
    from vision.synth.flat import flat_table
    image, _ = flat_table("standard", [("8S", (640, -0.2 * 300), 0), ("5C", (640, 400), 10)], card_h=300, seed=7)
    cv2.imwrite(str(tmp_path / "cut.png"), image)

    def cards(*extra):
        return sorted(c["card"] for c in _detect_json(capsys, tmp_path / "cut.png", *extra)[0]["cards"])

    assert cards() == cards("--cut-cards") == cards("--no-indices") == ["5C", "8S"]
    assert cards("--no-cut-cards") == ["5C"]


def test_detect_reads_photos_as_the_eval_measures_them(tmp_path, capsys):
    # the stated threshold's precision is measured by `warref eval`: `warref detect` must read a
    # photo the same way (the same passes, the same detector gate, square photos stretched back, the
    # same second looks close up, cards cut by the edge read, leaning on the face reader alike, cards
    # looked for by their corner index alone)
    import inspect

    from vision.lab import evaluate
    from vision.lab.evaluate import predict

    photo, _ = _squeezed_photo("10C")
    cv2.imwrite(str(tmp_path / "square.png"), photo)
    paths = [FIXTURES / "table-standard.jpg", tmp_path / "square.png"]
    # the command in this process, reading one photo at a time: that worker processes read as this
    # one does is tests/vision/test_photos.py's
    detected = [[(c["card"], c["confidence"], c["box"]) for c in photo["cards"]]
                for photo in _detect_json(capsys, *paths, "--threshold", "0.3", "--jobs", "1")]
    assert inspect.signature(evaluate.run).parameters["config"].default == PHOTO     # what the eval reads with
    measured = predict(TableReader("standard", PHOTO), paths, "eval", quiet=True)
    assert detected == [[(c["card"], c["confidence"], c["box"]) for c in line["cards"] if c["confidence"] >= 0.3]
                        for line in measured]
    stated = TableReader("standard").reader.threshold
    assert [len([c for c in cards if c[1] >= stated]) for cards in detected] == [5, 1]


def test_detect_and_eval_read_boxes_down_to_the_same_detector_score(monkeypatch, capsys):
    from vision.lab import evaluate
    from vision.detector import Detector
    from web import cli

    gates = []
    real = Detector.__call__
    monkeypatch.setattr(Detector, "__call__", lambda self, image, threshold=0.25, **kw:
                        gates.append(threshold) or real(self, image, threshold, **kw))
    assert cli.main(["detect", str(FIXTURES / "table-standard.jpg"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cards"]
    assert gates and set(gates) == {PHOTO.gate} == {C.gate} == {evaluate.LOW}


def test_missing_model_and_bad_image_say_what_to_do(tmp_path):
    with pytest.raises(ModelMissing, match="warref train"):
        TableReader("standard", models=tmp_path)
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(BadImage, match="not a readable image"):
        load_image(tmp_path / "empty.jpg")
    with pytest.raises(ValueError, match="unknown deck"):
        TableReader("tarot")
    # a reader whose face reader is missing (its .json names it) says which file
    import shutil
    for f in ["detector.onnx", "detector.json", "reader-woolly.onnx", "reader-woolly.json"]:
        shutil.copyfile(MODELS / f, tmp_path / f)
    with pytest.raises(ModelMissing, match="reader-woolly-face.onnx is missing"):
        TableReader("woolly", models=tmp_path)


def test_committed_models_are_small_and_described():
    overview = (MODELS / "README.md").read_text()
    for onnx in MODELS.glob("*.onnx"):
        assert onnx.stat().st_size < 20 * 2 ** 20
        meta = json.loads(onnx.with_suffix(".json").read_text())
        assert meta["imgsz"] > 0 and meta["names"]
        assert onnx.name in overview
        assert meta.get("sure", meta.get("threshold", 0.5)) >= meta.get("threshold", 0.5)
        for member in meta.get("members", []):   # a member is there, says whose it is, reads the same classes
            other = json.loads((MODELS / member).with_suffix(".json").read_text())
            assert other["member_of"] == onnx.name and other["names"] == meta["names"]
        if meta.get("face"):                # a face reader named by an index reader is there, same classes
            face = json.loads((MODELS / meta["face"]).with_suffix(".json").read_text())
            assert face["names"] == meta["names"] and face["views"] == "face"
    for onnx in MODELS.glob("*.onnx"):                  # a model card beside every model
        name = onnx.stem
        assert f"{name}.md" in overview
        card = (MODELS / f"{name}.md").read_text()
        assert f"{name}.onnx" in card and "Known weaknesses" in card and "Training" in card


def test_refine_snaps_a_rough_box_to_the_card():
    from vision.refine import refine

    image, placed = flat_table("standard", [("6D", (640, 360), 23)], seed=4)
    truth = placed[0].corners
    rough = cv2.boxPoints(((650, 352), (135, 185), 31)).astype(np.float32)      # off by 10 px and 8 degrees
    snapped, moved = refine(image, rough)
    assert moved
    for corner in truth:
        assert np.linalg.norm(snapped - corner, axis=1).min() < 4


def test_a_box_is_read_where_the_detector_put_it_and_counts_surer_on_paper(readers):
    """The reader cuts a card where the detector boxed it (snapping boxes to the paper's edges read
    fewer cards with detector run 5: models/reader-standard.md); a box whose paper edges are found
    counts as sure as ``snapped``, one on a card without pale edges keeps the detector's score (each
    counting as its ``box_power`` for a face-up card)."""
    from vision.detector import Detection

    image, placed = flat_table("standard", [("6D", (640, 360), 23)], seed=4)
    rough = placed[0].corners + np.float32([3, -2])                    # a few pixels off
    read = readers["standard"].identify(image, [Detection("card", 0.5, rough, 23.0)])[0]
    assert read.card == "6D" and np.allclose(read.corners, rough)       # not moved
    assert 0.5 ** C.box_power < read.confidence <= C.snapped ** C.box_power    # surer than the detector's 0.5
    blank = np.full_like(image, 90)                                     # no paper there: the score as it was
    plain = readers["standard"].identify(blank, [Detection("card", 0.5, rough, 23.0)])[0]
    assert np.allclose(plain.corners, rough) and plain.confidence <= 0.5 ** C.box_power


def test_refine_keeps_the_box_when_there_is_no_card():
    from vision.refine import refine

    image, _ = flat_table("standard", [], seed=4)
    rough = cv2.boxPoints(((640, 360), (120, 170), 10)).astype(np.float32)
    snapped, moved = refine(image, rough)
    assert not moved and np.allclose(snapped, rough)


def _probs(**p):
    names = ["7S", "7C", "BACK", "NONE"]
    v = np.full(len(names), 0.01)
    for k, x in p.items():
        v[names.index(k)] = x
    return v / v.sum()


def test_combine_averages_corners_and_lets_a_blank_corner_leave_the_other_alone():
    from vision.reader import combine

    seven, none, back = _probs(**{"7S": 0.97}), _probs(NONE=0.95), _probs(BACK=0.95)
    # both corners read the card: the mean
    assert np.allclose(combine(np.stack([seven, seven]), 3, 2), seven)
    # two corners that disagree on the card: the mean, low
    both = combine(np.stack([seven, _probs(**{"7C": 0.97})]), 3, 2)
    assert both.max() < 0.5
    # one corner shows no index: the other reads alone, at lone_corner of its probability
    lone = combine(np.stack([seven, none]), 3, 2)
    assert lone.argmax() == 0 and 0.5 < lone.max() <= C.lone_corner
    assert combine(np.stack([seven, none])).max() < 0.5            # without the NONE index: the plain mean
    # a back needs both corners; so does NONE itself
    assert combine(np.stack([back, none]), 3, 2).max() < 0.5
    assert combine(np.stack([none, none]), 3, 2).argmax() == 3



def _spread(**p):
    """Probabilities over eight classes (NONE is index 3, BACK 2): the rest shared evenly."""
    names = ["7S", "7C", "BACK", "NONE", "2H", "9D", "QS", "KH"]
    v = np.zeros(len(names))
    for k, x in p.items():
        v[names.index(k)] = x
    rest = [i for i, n in enumerate(names) if n not in p]
    v[rest] = (1 - v.sum()) / len(rest)
    return v


def test_a_corner_unsure_of_everything_leaves_a_sure_one_alone_where_the_face_agrees():
    from vision.reader import blend, combine

    seven, covered = _spread(**{"7S": 0.8}), _spread()          # a newspaper over one corner: no class sure
    assert covered.max() < C.flat
    face, other_face = _spread(**{"7S": 0.8}), _spread(**{"7C": 0.8})
    mean = (seven + covered) / 2
    # the face reads the sure corner's card: that corner reads alone, as beside a blank corner
    alone = combine(np.stack([seven, covered]), 3, 2, faces=face[None], weight=0.3)
    assert np.allclose(alone, blend(seven * C.lone_corner, face, 0.3))
    assert alone.argmax() == 0 and alone.max() > 0.5 > mean.max()
    # the face reads another card (a fan boxed as one): the two corners are averaged, as before
    fan = combine(np.stack([seven, covered]), 3, 2, faces=other_face[None], weight=0.3)
    assert np.allclose(fan, blend(mean, other_face, 0.3)) and fan[0] < alone[0]
    # without a face reader, or with a corner that reads another card, or a reader of both corners
    # side by side: the mean
    assert np.allclose(combine(np.stack([seven, covered]), 3, 2), mean)
    other = _spread(**{"7C": 0.5})
    assert np.allclose(combine(np.stack([seven, other]), 3, 2, faces=face[None], weight=0.3),
                       blend((seven + other) / 2, face, 0.3))
    assert np.allclose(combine(np.stack([seven, covered]), 3, 2, lone=False, faces=face[None], weight=0.3),
                       blend(mean, face, 0.3))
    # a sure corner that reads BACK still needs the other
    back, back_face = _spread(BACK=0.8), _spread(BACK=0.8)
    assert np.allclose(combine(np.stack([back, covered]), 3, 2, faces=back_face[None], weight=0.3),
                       blend((back + covered) / 2, back_face, 0.3))


def test_the_face_counts_more_where_both_corners_are_sure_of_no_card():
    from vision.reader import blend, combine, face_weight

    seven = _spread(**{"7S": 0.9})
    flat = _spread()
    # sure of a card, or that no index shows (NONE: a white box is no card, whatever the face
    # reader makes of it): the deck's weight; sure of nothing: up to face_most, in between by how sure
    assert face_weight(seven, 0.3, 3) == 0.3
    assert face_weight(np.eye(8)[3], 0.3, 3) == 0.3 == face_weight(_spread(NONE=C.flat), 0.3, 3)
    assert face_weight(flat, 0.3, 3) > 0.3
    assert np.isclose(face_weight(np.zeros(8), 0.3, 3), C.face_most)
    assert face_weight(_spread(**{"7S": C.flat / 2}), 0.3, 3) < face_weight(flat, 0.3, 3) < C.face_most
    assert face_weight(flat, 0.3, None) == 0.3 and face_weight(flat, 0.8, 3) == 0.8
    # two covered corners and a face that reads the card: surer than at the deck's weight, where
    # told how far the face may count (a photo); at the deck's weight where not (a live table)
    face = _spread(**{"7S": 0.8})
    both = combine(np.stack([flat, flat]), 3, 2, faces=face[None], weight=0.3, most=C.face_most)
    assert both.argmax() == 0 and both[0] > blend(flat, face, 0.3)[0]
    assert np.allclose(both, blend(flat, face, face_weight(flat, 0.3, 3)))
    assert np.allclose(combine(np.stack([flat, flat]), 3, 2, faces=face[None], weight=0.3), blend(flat, face, 0.3))


def test_a_photo_leans_on_the_face_reader_where_a_live_table_does_not(readers, monkeypatch):
    from vision.reader import blend, face_weight

    table = readers["standard"]
    names = table.reader.names
    none = names.index("NONE")
    flat = np.full(len(names), 1 / len(names), np.float32)            # both corners covered by a hand
    face = np.full(len(names), 0.2 / (len(names) - 1), np.float32)
    face[names.index("7S")] = 0.8
    views, faces = np.stack([flat, flat]), face[None]
    assert not table.config.lean and not LIVE.lean and PHOTO.lean      # a live table: the deck's weight
    live = table._combine(views, faces)
    assert np.allclose(live, blend(flat, face, table.face_weight))
    monkeypatch.setattr(table, "config", replace(table.config, lean=True))   # a photo (`warref detect`, eval)
    photo = table._combine(views, faces)
    assert np.allclose(photo, blend(flat, face, face_weight(flat, table.face_weight, none, C.face_most)))
    assert photo.argmax() == live.argmax() == names.index("7S") and photo.max() > live.max()


def test_combine_prefers_the_way_up_that_reads_a_card():
    from vision.reader import combine

    seven, clubs, none = _probs(**{"7S": 0.9}), _probs(**{"7C": 0.7}), _probs(NONE=0.97)
    # a near-square box read both ways: the way that shows no index (sure NONE) loses to the card
    assert combine(np.stack([none, none, seven, seven]), 3, 2).argmax() == 0
    assert combine(np.stack([seven, seven, none, none]), 3, 2).argmax() == 0
    # every way reads NONE: not a card
    assert combine(np.stack([none, none, none, none]), 3, 2).argmax() == 3
    # two ways that read cards: the surer
    assert combine(np.stack([clubs, clubs, seven, seven]), 3, 2).argmax() == 0
    # without the NONE index: the surest way, whatever it reads
    assert combine(np.stack([none, none, seven, seven])).argmax() == 3
    # a reader of both corners at once (not lone): the same choice of way, but each two views (the
    # same two corners in both orders) are simply averaged
    assert combine(np.stack([none, none, seven, seven]), 3, 2, lone=False).argmax() == 0
    assert combine(np.stack([seven, none]), 3, 2, lone=False).max() < 0.5


@pytest.mark.parametrize("deck", list(HANDS))
def test_a_card_seen_steeply_from_its_short_end_is_read_both_ways_up(readers, deck):
    # squashed to 62% of its height, the card's box is wider than tall: its short edges are the
    # card's long ones, so the way up its box gives shows the two blank corners
    card = HANDS[deck][0]
    image, placed = flat_table(deck, [(card, (400, 300), 0)], size=(800, 600))
    squashed = cv2.resize(image, (800, 372), interpolation=cv2.INTER_AREA)
    corners = placed[0].corners * [1, 372 / 600]
    edges = np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1)
    assert edges[0] > edges[1] and geometry.squarish(corners)
    assert [r.card for r in readers[deck].read(squashed, 0.5)] == [card]


def test_reader_set_labels_a_sideways_view_as_no_index():
    from vision.train.reader_set import upright, views

    image, placed = flat_table("woolly", [("8G", (400, 300), 0)], size=(800, 600))
    printed = placed[0].corners
    assert upright(geometry.portrait(printed), printed) and upright(geometry.portrait(printed, True), printed)
    assert not upright(np.roll(geometry.portrait(printed), -1, 0), printed)

    def labels(picture, corners, sideways_none=True):
        label = {"card": "8G", "face_up": True, "index_visible": True, "visible": 1.0,
                 "obb": corners.tolist(), "corners": corners.tolist()}
        found = list(views(picture, {"cards": [label]}, "woolly", np.random.default_rng(0),
                           sideways_none=sideways_none))
        assert all(v.shape == (geometry.VIEW_SIZE, geometry.VIEW_SIZE, 3) for _, v in found)
        return sorted(code for code, _ in found)

    assert labels(image, printed) == ["8G"]                        # upright and clearly tall: one view
    squashed = cv2.resize(image, (800, 372), interpolation=cv2.INTER_AREA)
    low = printed * [1, 372 / 600]                                  # wider than tall: both ways, one blank
    assert labels(squashed, low) == ["8G", "NONE"]
    assert labels(squashed, low, sideways_none=False) == ["8G"]    # the old labelling: the way the box gives


def test_a_strip_of_a_card_shows_its_index_to_the_reader_one_way_up_or_not_at_all():
    # a hand over the lower 55% of a card: its box is the strip that shows, wider than tall, so
    # the run time reads it its own way up (the index lies off the view's corners there) and, that
    # reading NONE, the other way up (the index in a corner region, the right way up); with the
    # top-left index covered, no way of cutting the strip shows an index (`warref eval` counts
    # such cards apart)
    from vision.train.reader_set import shows_index

    _, placed = flat_table("woolly", [("8G", (400, 300), 0)], size=(800, 600))
    printed = placed[0].corners
    def index_box(c, a, b):         # the index printed at corner c, its centre 0.125 along each edge
        centre = printed[c] + 0.125 * (printed[a] - printed[c]) + 0.125 * (printed[b] - printed[c])
        return [int(v) for v in (*(centre - 10), *(centre + 10))]
    both = [index_box(0, 1, 3), index_box(2, 3, 1)]
    label = {"card": "8G", "corners": printed.tolist(), "index_boxes": both}
    # a whole card: as ``upright`` says, the way the box gives shows it, the sideways one does not
    assert shows_index(geometry.portrait(printed), label, "woolly")
    assert shows_index(geometry.portrait(printed, True), label, "woolly")
    assert not shows_index(np.roll(geometry.portrait(printed), -1, 0), label, "woolly")

    strip = np.array([printed[0], printed[1], printed[1] + 0.45 * (printed[2] - printed[1]),
                      printed[0] + 0.45 * (printed[3] - printed[0])], np.float32)
    assert not geometry.squarish(strip)

    def ways(index_boxes):
        return [shows_index(geometry.oriented(strip, flip, sideways), dict(label, index_boxes=index_boxes), "woolly")
                for sideways in (False, True) for flip in (False, True)]

    assert ways(both) == [False, False, True, True]         # its own way up both ends first, then the other
    assert ways([both[1]]) == [False] * 4                   # the top-left index covered, the other off the strip


@pytest.mark.parametrize("deck", ["woolly", "namikopy"])
def test_a_card_that_looks_longer_across_is_read_the_other_way_up_too(readers, deck):
    # squashed to half its height the card is clearly wider than long (not squarish), so its box
    # is read one way up first: that way shows the two blank corners, which these readers were
    # trained to read as NONE; a box read as NONE is then read the other way up too
    reader = readers[deck]
    assert reader.reader.sideways_none
    card = HANDS[deck][0]
    image, placed = flat_table(deck, [(card, (400, 300), 0)], size=(800, 600))
    squashed = cv2.resize(image, (800, 300), interpolation=cv2.INTER_AREA)
    assert not geometry.squarish(placed[0].corners * [1, 0.5])
    assert [r.card for r in reader.read(squashed, 0.5)] == [card]
    reader.reader.sideways_none = False
    try:                                    # one way up only: nothing wrong is read, at most nothing
        assert all(r.card == card for r in reader.read(squashed, 0.5))
    finally:
        reader.reader.sideways_none = True


def test_face_view_is_the_whole_card_and_turns_round_with_it():
    def small(view):            # compared at 24 pixels: warping from the other corner shifts a pixel
        return cv2.resize(view, (24, 24), interpolation=cv2.INTER_AREA).astype(int)

    image, placed = flat_table("woolly", [("8G", (400, 300), 20)], size=(800, 600))
    up = geometry.face_view(image, placed[0].corners, "woolly")
    down = geometry.face_view(image, placed[0].corners, "woolly", flip=True)
    assert up.shape == (geometry.VIEW_SIZE, geometry.VIEW_SIZE, 3)
    turned = np.abs(small(cv2.rotate(up, cv2.ROTATE_180)) - small(down)).mean()
    assert turned < 0.5 * np.abs(small(up) - small(down)).mean()          # upside down, not the same way up
    # the whole card, not a corner: its top-left corner region is the index view's left half
    index = geometry.view_of(image, placed[0].corners, "woolly")
    fx, fy = geometry.CORNER["woolly"]
    s = geometry.VIEW_SIZE
    corner = cv2.resize(up[:round(s * fy), :round(s * fx)], (s // 2, s), interpolation=cv2.INTER_AREA)
    assert np.abs(small(corner) - small(index[:, :s // 2])).mean() < 10
    other, placed_other = flat_table("woolly", [("3R", (400, 300), 20)], size=(800, 600))
    assert np.abs(small(up) - small(geometry.face_view(other, placed_other[0].corners, "woolly"))).mean() > 2 * turned


@pytest.mark.parametrize("deck", ["woolly", "namikopy"])
def test_the_face_reader_reads_small_cards_on_its_own_and_beside_the_index(readers, deck):
    # cards 40 pixels wide: their corner index is about 7 pixels tall, their central numeral 20
    reader = readers[deck]
    assert reader.face is not None and 0 < reader.face_weight < 1
    cards = [(code, at, angle) for code, (at, angle) in zip(HANDS[deck], LAYOUT)]
    image, placed = flat_table(deck, cards, card_h=56, seed=4)
    weight = reader.face_weight
    try:
        for w in (1.0, weight):                     # the face reader alone, then as the run time blends it
            reader.face_weight = w
            probs = reader.probabilities(image, [p.corners for p in placed])
            assert [reader.reader.names[int(p.argmax())] for p in probs] == [p.card for p in placed]
        reader.face_weight = 0.0                    # no face reading: the index reader's own probabilities
        alone, face = reader.face, reader.face
        reader.face = None
        plain = reader.probabilities(image, [p.corners for p in placed])
        reader.face = alone
        blended = reader.probabilities(image, [p.corners for p in placed])
        assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(plain, blended))
    finally:
        reader.face_weight, reader.face = weight, face


def test_reader_set_cuts_face_views_labelled_like_index_views():
    from vision.train.reader_set import views

    image, placed = flat_table("woolly", [("8G", (400, 300), 0)], size=(800, 600))
    squashed = cv2.resize(image, (800, 372), interpolation=cv2.INTER_AREA)
    low = placed[0].corners * [1, 372 / 600]
    label = {"card": "8G", "face_up": True, "index_visible": True, "visible": 1.0,
             "obb": low.tolist(), "corners": low.tolist()}
    found = list(views(squashed, {"cards": [label]}, "woolly", np.random.default_rng(0), sideways_none=True,
                       view=geometry.face_view))
    assert sorted(code for code, _ in found) == ["8G", "NONE"]
    # the card's own way up is the box's sideways one (its box is wider than tall): the whole card
    small = lambda v: cv2.resize(v, (24, 24), interpolation=cv2.INTER_AREA).astype(int)    # noqa: E731
    card = small(next(v for code, v in found if code == "8G"))

    def nearest(sideways):              # upright or upside down (drawn at random), the box jittered
        return min(np.abs(card - small(geometry.face_view(squashed, low, "woolly", flip, sideways))).mean()
                   for flip in (False, True))
    assert nearest(True) < 0.6 * nearest(False)


def test_installing_a_retrained_reader_keeps_its_measured_run_time_settings(tmp_path, monkeypatch):
    from vision.train import install

    monkeypatch.setattr(install, "MODELS", tmp_path / "models")
    (tmp_path / "models").mkdir()
    run = tmp_path / "run"
    run.mkdir()
    (run / "reader.onnx").write_bytes(b"weights 1")
    (run / "reader.json").write_text(json.dumps({"imgsz": 64, "names": {"0": "1", "1": "NONE"}, "views": "corners"}))
    first = install._install(run / "reader.onnx", "reader-namikopy", sideways_none=True)
    meta = json.loads(first.with_suffix(".json").read_text())
    assert meta["views"] == "corners" and meta["sideways_none"] is True
    # measured since: the run time reads both orders, at 0.5, with a face reader beside it
    first.with_suffix(".json").write_text(json.dumps(meta | {"views": "both", "threshold": 0.5,
                                                              "face": "reader-namikopy-face.onnx"}))
    (run / "reader.onnx").write_bytes(b"weights 2")
    again = install._install(run / "reader.onnx", "reader-namikopy", sideways_none=True)
    meta = json.loads(again.with_suffix(".json").read_text())
    assert again.read_bytes() == b"weights 2"
    assert (meta["views"], meta["threshold"], meta["face"]) == ("both", 0.5, "reader-namikopy-face.onnx")


def test_warref_train_reader_passes_its_learning_rate_on(tmp_path, monkeypatch):
    """`warref train reader --lr` reaches the reader's training (a fine-tune from good weights wants a
    lower rate than training from scratch); without it the trainer keeps its own default."""
    from vision.train import install, reader_negatives, reader_net, reader_set

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(install, "MODELS", tmp_path / "models")
    monkeypatch.setattr(install, "RUNS", tmp_path / "models" / "runs")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "reader-standard.json").write_text(json.dumps({"imgsz": 64, "names": ["NONE"]}))
    calls = []

    def fake_train(views, out, **kwargs):
        calls.append(kwargs)
        out.mkdir(parents=True, exist_ok=True)
        (out / "reader.onnx").write_bytes(b"weights")
        (out / "reader.json").write_text(json.dumps({"imgsz": kwargs["imgsz"], "names": ["NONE"]}))
        return out / "reader.onnx"

    monkeypatch.setattr(reader_net, "train", fake_train)
    monkeypatch.setattr(reader_set, "build", lambda *a, **k: {})
    monkeypatch.setattr(reader_negatives, "build", lambda *a, **k: {})
    install.reader("standard", [tmp_path / "scenes"], 8, 96, False, face=True, lr=1e-3)
    install.reader("standard", [tmp_path / "scenes"], 8, 64, False, face=True)
    assert calls[0]["lr"] == 1e-3 and calls[0]["imgsz"] == 96 and calls[0]["one_corner"] == 0.0
    assert "lr" not in calls[1]
    assert json.loads((tmp_path / "models" / "reader-standard-face.json").read_text())["imgsz"] == 64


def test_a_live_reader_reads_again_only_the_cards_that_changed():
    reader = TableReader("standard", LIVE)
    calls = []
    read_views = reader.reader.probabilities
    reader.reader.probabilities = lambda views: (calls.append(len(views)), read_views(views))[1]
    hand = ["6S", "7S", "AD", "10C"]
    image, _ = flat_table("standard", [(c, at, a) for c, (at, a) in zip(hand, LAYOUT)], seed=3)
    first = sorted(r.card for r in reader.read(image) if r.confidence >= 0.5)
    assert first == sorted(hand) and calls == [8]                  # two corner views a card
    # the same table through a noisy camera: nothing has changed, nothing is read again
    noise = np.random.default_rng(1).normal(0, 4, image.shape).round()
    noisy = np.clip(image + noise, 0, 255).astype(np.uint8)
    assert sorted(r.card for r in reader.read(noisy) if r.confidence >= 0.5) == first and sum(calls[1:]) == 0
    # the 6 of spades turned into a 7 of spades at the very same place: that card, and only it, is read again
    changed, _ = flat_table("standard", [(c, at, a) for c, (at, a) in zip(["7S", *hand[1:]], LAYOUT)], seed=3)
    assert sorted(r.card for r in reader.read(changed) if r.confidence >= 0.5) == sorted(["7S", *hand[1:]])
    assert calls[-1] == 2
    # a reader that does not reuse (photos, evaluation) reads everything every time
    plain = TableReader("standard")
    plain.reader.probabilities = reader.reader.probabilities
    plain.read(image)
    plain.read(image)
    assert calls[-2:] == [8, 8]


def test_a_face_up_card_counts_its_box_score_less_than_a_back(readers):
    """A face-up reading's confidence is the reader's probability times the box's score to
    ``box_power``; a back's, times the score itself (a back is easily a table's pattern to the reader)."""
    reader = readers["standard"]
    w = reader.box_weights(0.36)
    back = reader.reader.names.index("BACK")
    assert w[back] == pytest.approx(0.36)
    assert np.delete(w, back) == pytest.approx(0.36 ** C.box_power) and 0 < C.box_power < 1


def test_an_index_reader_s_members_are_averaged_and_must_read_the_same_views(tmp_path):
    import shutil
    from vision.reader import IndexReader
    meta = json.loads((MODELS / "reader-standard.json").read_text())
    members = meta.get("members", [])
    assert members, "the standard reader is an ensemble (models/README.md)"
    whole = IndexReader(MODELS / "reader-standard.onnx")
    shutil.copyfile(MODELS / "reader-standard.onnx", tmp_path / "lead.onnx")
    (tmp_path / "lead.json").write_text(json.dumps({**meta, "members": []}))
    alone = [IndexReader(tmp_path / "lead.onnx")] + [IndexReader(MODELS / m) for m in members]
    image = cv2.imread(str(FIXTURES / "table-standard.jpg"))
    views = [image[y:y + 64, x:x + 64] for x, y in [(280, 330), (540, 320), (800, 360), (1030, 310)]]
    each = [r.probabilities(views) for r in alone]
    assert not np.allclose(each[0], each[1], atol=1e-3)          # members that differ...
    assert np.allclose(whole.probabilities(views), np.mean(each, axis=0), atol=1e-5)   # ...averaged
    assert np.allclose(whole.probabilities(views).sum(1), 1, atol=1e-4)
    # a member that reads other classes cannot be averaged in; a missing one says which file
    for f in ["reader-woolly.onnx", "reader-woolly.json"]:
        shutil.copyfile(MODELS / f, tmp_path / f)
    (tmp_path / "lead.json").write_text(json.dumps({**meta, "members": ["reader-woolly.onnx"]}))
    with pytest.raises(ValueError, match="reader-woolly.onnx reads other classes"):
        IndexReader(tmp_path / "lead.onnx")
    (tmp_path / "lead.json").write_text(json.dumps({**meta, "members": ["gone.onnx"]}))
    with pytest.raises(ModelMissing, match="gone.onnx is missing"):
        IndexReader(tmp_path / "lead.onnx")
