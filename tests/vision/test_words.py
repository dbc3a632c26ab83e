"""Cards found by a word they print (vision/words.py): a joker by its JOKER, read into a photo's cards."""
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from vision import words
from vision.config import LIVE, PHOTO, ReaderConfig
from vision.reader import Read, TableReader
from vision.steps import Context
from vision.steps import words as word_step
from vision.words import Word, WordReader, groups, names

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "realcards"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf"
FONT_B = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
C = ReaderConfig()
# how these tests read a photo: every photo step but zoom, with words switched on where a test says
PHOTO_NO_WORDS = ReaderConfig(passes=PHOTO.passes, unstretch=True, cut=True, lean=True, indices=True)


def joker(word: str = "Joker", font: str = FONT, turn: float = 12.0, size=(640, 640), centre=(330, 320),
          seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A photo of a card that prints ``word`` across both ends (upside down at the bottom) and a
    hat in its middle, no corner index, turned ``turn`` degrees on a grainy brown table; and the
    card's corners in the photo."""
    cw, ch = 250, 350
    card = Image.new("RGB", (cw, ch), (246, 244, 238))
    d = ImageDraw.Draw(card)
    d.rounded_rectangle([0, 0, cw - 1, ch - 1], radius=14, outline=(190, 190, 190), width=2)
    f = ImageFont.truetype(font, 46)
    d.text((cw / 2, 48), word, font=f, fill=(200, 40, 40), anchor="mm")
    d.polygon([(125, 110), (70, 250), (180, 250)], fill=(40, 40, 90))              # a wizard's hat
    for x, y in ((100, 200), (140, 170), (120, 230)):
        d.regular_polygon((x, y, 9), 5, fill=(240, 200, 40))
    bottom = Image.new("RGB", (cw, 90), (246, 244, 238))
    ImageDraw.Draw(bottom).text((cw / 2, 45), word, font=f, fill=(200, 40, 40), anchor="mm")
    card.paste(bottom.rotate(180), (0, ch - 96))
    card = cv2.cvtColor(np.asarray(card), cv2.COLOR_RGB2BGR)
    rng = np.random.default_rng(seed)
    table = np.clip(np.array([60, 95, 140]) + rng.normal(0, 12, (size[1], size[0], 3)), 0, 255).astype(np.uint8)
    m = cv2.getRotationMatrix2D((cw / 2, ch / 2), turn, 1.0)
    m[:, 2] += np.array(centre) - np.array([cw / 2, ch / 2])
    warped = cv2.warpAffine(card, m, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    mask = cv2.warpAffine(np.full((ch, cw), 255, np.uint8), m, size, flags=cv2.INTER_NEAREST)
    photo = np.where(mask[..., None] > 0, warped, table)
    corners = cv2.transform(np.array([[[0, 0], [cw, 0], [cw, ch], [0, ch]]], np.float32), m)[0]
    return photo, corners


@pytest.fixture(scope="module")
def text_reader():
    return WordReader("standard", threads=2)


def test_a_line_names_a_card_only_by_a_whole_word_of_the_deck():
    assert names("Joker", "standard") == "JOKER"
    assert names("JOKER*", "standard") == "JOKER"
    assert names("the joker", "standard") == "JOKER"
    assert names("Jokers", "standard") is None
    assert names("ajoker", "standard") is None
    assert names("oker", "standard") is None
    assert names("POKER", "standard") is None
    assert names("Joker", "woolly") is None             # no deck words known for the alpaca deck


def test_a_card_s_two_words_are_one_card_and_far_words_two():
    quad = np.array([[0, 0], [100, 0], [100, 30], [0, 30]], np.float32)
    top = Word("JOKER", 0.9, quad + [50, 50], "Joker")
    bottom = Word("JOKER", 0.8, quad + [80, 240], "Joker")          # 1.9 lengths away: the card's other end
    far = Word("JOKER", 0.95, quad + [600, 50], "JOKER")             # 5.5 lengths: a second joker
    assert sorted(len(g) for g in groups([top, bottom, far])) == [1, 2]
    assert [len(g) for g in groups([top])] == [1]
    assert groups([]) == []


def test_a_printed_word_is_read_where_it_is_and_upside_down_too(text_reader):
    photo, corners = joker()
    found = text_reader.find(photo)
    assert len(found) == 2 and {w.card for w in found} == {"JOKER"}
    for w in found:
        assert w.probability >= 0.8
        assert cv2.pointPolygonTest(corners.reshape(-1, 1, 2), tuple(map(float, w.centre)), False) > 0
    assert [len(g) for g in groups(found)] == [2]


@pytest.mark.parametrize("word", ["POKER", "Jokers", "Queen"])
def test_other_words_name_no_card(text_reader, word):
    photo, _ = joker(word, FONT_B)
    assert text_reader.find(photo) == []


def test_a_photo_without_text_has_no_words(text_reader):
    photo = np.clip(np.random.default_rng(1).normal(120, 20, (480, 640, 3)), 0, 255).astype(np.uint8)
    assert text_reader.find(photo) == []


def test_detect_says_nothing_of_a_photo_without_text(tmp_path):
    """The text reader's own log (a warning for every photo without text) stays out of stderr."""
    photo = np.clip(np.random.default_rng(1).normal(120, 20, (480, 640, 3)), 0, 255).astype(np.uint8)
    cv2.imwrite(str(tmp_path / "empty.png"), photo)
    done = subprocess.run([sys.executable, "-m", "web.cli", "detect", str(tmp_path / "empty.png"), "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["cards"] == []


def test_the_text_reader_reads_with_no_network(monkeypatch):
    """Its models are the wheel's files: nothing is fetched (nothing may be downloaded at run time)."""
    import requests

    def refuse(*a, **k):
        raise AssertionError("the text reader asked the network for something")
    monkeypatch.setattr(requests, "get", refuse)
    monkeypatch.setattr(requests.Session, "request", refuse)
    photo, _ = joker(turn=-8)
    assert [w.card for w in WordReader("standard", threads=1).find(photo)] == ["JOKER", "JOKER"]


class Words:
    """A text reader that reads the given words in any photo (to test the rules alone)."""

    def __init__(self, found):
        self.found = found

    def find(self, image):
        return self.found


def _reader(found) -> TableReader:
    reader = TableReader("standard", ReaderConfig(words=True))
    reader._word_reader = Words(found)
    return reader


def _with_words(reader, image, reads, threshold=C.gate):
    """The words step alone, run on ``reads`` as ``reader`` runs it (threshold: the gate)."""
    return word_step.step(image, reads, Context(reader, threshold))


def _read(card, confidence, x0, y0, x1, y1, detector=0.5):
    return Read(card, confidence, [x0, y0, x1, y1], [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], 0.0, detector,
                [("QD", 0.1)])


def test_a_joker_is_read_on_the_box_its_word_is_in():
    image = np.zeros((640, 640, 3), np.uint8)
    quad = np.array([[120, 110], [380, 110], [380, 190], [120, 190]], np.float32)
    word = Word("JOKER", 0.93, quad, "Joker")
    stated = TableReader("standard").reader.threshold
    # a box on the joker read unsurely as a king: that box is the joker, as sure as its word
    king = _read("KD", 0.34, 100, 80, 540, 570)
    beside = _read("6C", 0.2, 560, 0, 640, 200)                     # another box, not holding the word
    out = _with_words(_reader([word]), image, [king, beside])
    assert [(r.card, r.confidence, r.box) for r in out] == [("JOKER", 0.93, king.box), ("6C", 0.2, beside.box)]
    assert out[0].alternatives[0] == ("KD", 0.34)
    # a card read at the stated threshold or over holding the word keeps its reading (the photo
    # states it: a card beside the joker, boxed over it): the joker is a card of its own, boxed by
    # its word
    sure = _read("6C", stated, 0, 0, 640, 640)
    out = _with_words(_reader([word]), image, [sure])
    assert [(r.card, r.confidence) for r in out] == [("JOKER", 0.93), ("6C", stated)]
    assert out[0].box == [120, 110, 380, 190] and out[0].detector == 0.0
    # a joker already read there: made as sure as its word, once; read surer, left as it is
    low = _read("JOKER", 0.3, 100, 80, 540, 570)
    assert [(r.card, r.confidence) for r in _with_words(_reader([word]), image, [low, king])] == [
        ("JOKER", 0.93), ("KD", 0.34)]
    high = _read("JOKER", 0.97, 100, 80, 540, 570)
    assert [(r.card, r.confidence) for r in _with_words(_reader([word]), image, [high])] == [("JOKER", 0.97)]
    # a word read under the threshold asked for is left out
    assert _with_words(_reader([Word("JOKER", 0.04, quad, "Joker")]), image, [king]) == [king]


def test_a_joker_with_no_box_is_boxed_by_both_its_words_as_one_card():
    image = np.zeros((640, 640, 3), np.uint8)
    top = Word("JOKER", 0.9, np.array([[80, 90], [350, 90], [350, 200], [80, 200]], np.float32), "Joker")
    bottom = Word("JOKER", 0.95, np.array([[250, 440], [500, 440], [500, 520], [250, 520]], np.float32), "joker")
    out = _with_words(_reader([bottom, top]), image, [])
    assert [(r.card, r.confidence, r.box) for r in out] == [("JOKER", 0.95, [80, 90, 500, 520])]


def test_a_rendered_joker_is_read_by_its_words():
    photo, corners = joker(turn=-20, seed=4)
    stated = TableReader("standard").reader.threshold
    reader = TableReader("standard", replace(PHOTO_NO_WORDS, words=True))
    jokers = [r for r in reader.read(photo) if r.card == "JOKER"]
    assert len(jokers) == 1 and jokers[0].confidence >= stated
    x0, y0, x1, y1 = jokers[0].box
    centre = corners.mean(axis=0)
    assert x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1


def test_other_decks_and_the_live_table_do_not_read_words():
    assert not word_step.runs(Context(TableReader("woolly", ReaderConfig(words=True)), C.gate))
    assert not word_step.runs(Context(TableReader("standard"), C.gate))
    assert not word_step.runs(Context(TableReader("standard", LIVE), C.gate))
    assert word_step.runs(Context(TableReader("standard", ReaderConfig(words=True)), C.gate))
    assert TableReader("standard", ReaderConfig(words=True)).settings()["config"].words is True


def test_detect_reads_words_unless_told_not_to(tmp_path, monkeypatch, capsys):
    from web import cli
    import vision.reader

    made = []
    real = vision.reader.TableReader.__init__

    def noting(self, deck="standard", config=C, *a, **k):      # the config each reader is made with
        made.append(config)
        return real(self, deck, config, *a, **k)
    monkeypatch.setattr(vision.reader.TableReader, "__init__", noting)
    photo, _ = joker(turn=5)
    cv2.imwrite(str(tmp_path / "j.png"), photo)
    assert cli.main(["detect", str(tmp_path / "j.png"), "--json", "--jobs", "1"]) == 0
    assert cli.main(["detect", str(tmp_path / "j.png"), "--json", "--jobs", "1", "--no-words"]) == 0
    assert [c.words for c in made] == [True, False]
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "JOKER" in [c["card"] for c in lines[0]["cards"]]


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/realcards is not beside this checkout")
@pytest.mark.parametrize("name", ["IMG_20220921_194554_jpg.jpg",    # boxed, read as a king of diamonds
                                  "IMG_20220921_195502_jpg.jpg"])   # no box over it at all
def test_a_real_wizard_joker_is_read_by_its_word(name):
    image = cv2.imread(str(REAL / "phone" / "images" / name))
    stated = TableReader("standard").reader.threshold
    assert "JOKER" not in [r.card for r in TableReader("standard", PHOTO_NO_WORDS).read(image)
                           if r.confidence >= stated]
    assert "JOKER" in [r.card for r in TableReader("standard", replace(PHOTO_NO_WORDS, words=True)).read(image)
                       if r.confidence >= stated]


def test_the_word_table_names_cards_of_its_deck():
    from vision.reader import IndexReader, MODELS
    for deck, table in words.WORDS.items():
        classes = IndexReader(MODELS / f"reader-{deck}.onnx").names
        assert set(table.values()) <= set(classes)


def test_without_the_text_reader_detect_says_so_and_reads_without_words(tmp_path, monkeypatch, capsys):
    import importlib.util

    from web import cli

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "rapidocr" else real(name, *a))
    photo, _ = joker(turn=5)
    cv2.imwrite(str(tmp_path / "j.png"), photo)
    assert cli.main(["detect", str(tmp_path / "j.png"), "--json", "--jobs", "1"]) == 2
    assert "text reader is not installed" in capsys.readouterr().err
    assert cli.main(["detect", str(tmp_path / "j.png"), "--json", "--jobs", "1", "--no-words"]) == 0
    assert json.loads(capsys.readouterr().out)["image"].endswith("j.png")
