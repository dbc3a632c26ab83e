"""Teaching warref a deck (`warref teach`, vision/teach.py): file names, bad photos, a deck that
appears only when complete, and a tiny deck taught end to end and read by `warref detect --deck`."""
import dataclasses
import json

import cv2
import numpy as np
import pytest

from cardpics import on_table, write_cards
from vision import art, decks
from vision.flatten import NoCard, TwoCards, flatten
from vision.config import LIVE
from vision.reader import MODELS, IndexReader, TableReader
from vision.teach import TeachError, code_of, codes_of, collect, teach
from web.cli import main


LIVE_ONE = dataclasses.replace(LIVE, reuse=False)      # the live reader, a picture on its own


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("WARREF_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_a_file_name_gives_its_card_code_the_way_warref_referee_spells_it():
    standard, woolly, namikopy = codes_of("standard"), codes_of("woolly"), codes_of("namikopy")
    assert code_of("QH.png", standard) == "QH"
    assert code_of("qh-2.jpg", standard) == "QH"
    assert code_of("10C_front.jpg", standard) == "10C"
    assert code_of("BACK.jpg", standard) == "BACK"
    assert code_of("joker 1.png", standard) == "JOKER"
    # a number straight after a code that ends in a letter: another photo, or another copy of the card
    assert code_of("JOKER2.png", standard) == "JOKER" and code_of("QH2.png", standard) == "QH"
    assert code_of("war3.jpg", codes_of("woolly")) == "WAR" and code_of("Turkey2.png", namikopy) == "TURKEY"
    for no in ("Q.png", "QHX.png", "queen.png", "1C.png", "jokers.png"):
        assert code_of(no, standard) is None, no
    assert code_of("10B.png", woolly) == "10B" and code_of("1B-x.png", woolly) == "1B"
    assert code_of("steal_2.jpg", woolly) == "STEAL"
    assert code_of("10.png", namikopy) == "10" and code_of("1.png", namikopy) == "1"
    assert code_of("12-b.png", namikopy) == "12"


def test_a_card_lying_on_a_table_is_found_and_flattened_and_bad_photos_say_why(namikopy_cards):
    card = namikopy_cards["7"]
    flat = flatten(on_table([card]))
    assert flat.shape == (art.CARD_H, art.CARD_W, 3)
    ref = cv2.resize(card, (art.CARD_W, art.CARD_H)).astype(float)
    # the same picture, upright or upside down: close to the card, far from another card
    best = min(np.abs(f.astype(float) - ref).mean() for f in (flat, cv2.rotate(flat, cv2.ROTATE_180)))
    other = np.abs(cv2.resize(namikopy_cards["FLAMINGO"], (art.CARD_W, art.CARD_H)).astype(float) - ref).mean()
    assert best < 0.5 * other
    assert flatten(card).shape == flat.shape                     # a picture of the card alone: itself
    with pytest.raises(TwoCards, match="two.png: 2 cards found"):
        flatten(on_table([card, namikopy_cards["3"]]), name="two.png")
    with pytest.raises(NoCard, match="empty.png: no card found"):
        flatten(on_table([]), name="empty.png")


def test_a_card_cut_out_is_taken_whole_in_any_card_shape_but_a_cameras_frame_is_searched(namikopy_cards):
    card = namikopy_cards["7"]
    for ratio in (1.27, 1.40, 1.5, 1.6, 1.71, 1.8):      # squat kids' cards, poker, bridge, tarot ...
        cut = cv2.resize(card, (200, round(200 * ratio)))
        expected = cv2.resize(cut, (art.CARD_W, art.CARD_H), interpolation=cv2.INTER_AREA)
        assert np.array_equal(flatten(cut), expected), ratio
        assert np.array_equal(flatten(cv2.rotate(cut, cv2.ROTATE_90_CLOCKWISE)), cv2.rotate(expected, cv2.ROTATE_180))
    for size in ((960, 1280), (720, 1280), (1024, 1280)):  # 4:3, 16:9, 5:4 photos of a table: the card found in them
        flat = flatten(on_table([card], size=size))
        ref = cv2.resize(card, (art.CARD_W, art.CARD_H)).astype(float)
        assert min(np.abs(f.astype(float) - ref).mean() for f in (flat, cv2.rotate(flat, cv2.ROTATE_180))) < 25, size
    with pytest.raises(NoCard, match=r"blank.png: no card found .* shaped 4:3 is taken for a camera's photo"):
        flatten(np.full((300, 400, 3), 90, np.uint8), name="blank.png")


def test_teaching_names_the_file_or_the_cards_that_stop_it(tmp_path, home, namikopy_cards):
    some = dict(list(namikopy_cards.items())[:5])
    folder = write_cards(tmp_path / "few", some)
    with pytest.raises(TeachError, match="no photo of 10 card") as err:
        collect("namikopy", folder)
    assert all(code in str(err.value) for code in namikopy_cards if code not in some)
    allowed = collect("namikopy", folder, allow_missing=True)
    assert sorted(allowed.shown()) == sorted(some) and sorted(allowed.codes) == sorted(namikopy_cards)
    (folder / "queen.png").write_bytes((folder / "1.png").read_bytes())
    with pytest.raises(TeachError, match="queen.png: the file name does not start with a card code"):
        collect("namikopy", folder, allow_missing=True)
    (folder / "queen.png").unlink()
    (folder / "2-broken.jpg").write_bytes(b"not a picture")
    with pytest.raises(TeachError, match="2-broken.jpg: not a readable image"):
        collect("namikopy", folder, allow_missing=True)
    (folder / "2-broken.jpg").unlink()
    cv2.imwrite(str(folder / "3-two.png"), on_table([namikopy_cards["3"], namikopy_cards["4"]]))
    with pytest.raises(TeachError, match="3-two.png: 2 cards found"):
        collect("namikopy", folder, allow_missing=True)
    # several photos wrong: every one named at once, so that one pass fixes them all
    (folder / "queen.png").write_bytes((folder / "1.png").read_bytes())
    with pytest.raises(TeachError, match="^2 photos cannot be used") as err:
        collect("namikopy", folder, allow_missing=True)
    assert "3-two.png: 2 cards found" in str(err.value) and "queen.png: the file name" in str(err.value)
    # the command line says it in one line, exits 2, and leaves no deck, not even half a one
    assert main(["teach", "fam", "--like", "namikopy", "--cards", str(folder), "--allow-missing", "--quiet"]) == 2
    assert decks.taught_decks() == [] and not any((home / "decks").glob("*fam*"))
    with pytest.raises(ValueError, match="built-in deck"):
        teach("standard", "standard", cards=folder)


def _close_up(card, corner_box: bool, size=640):
    """``card`` filling most of a ``size`` square photo, turned a little; (photo, YOLO box) where the
    box is around its top-left corner index (``corner_box``) or around the whole card."""
    h, w = card.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), 12, 300 / w)
    M[:, 2] += np.array([size / 2, size / 2]) - np.array([w / 2, h / 2])
    photo = np.full((size, size, 3), 95, np.uint8)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), M, (size, size)) > 0
    photo[mask] = cv2.warpAffine(card, M, (size, size))[mask]
    part = np.array([[0.02, 0.02], [0.32, 0.02], [0.32, 0.25], [0.02, 0.25]]) if corner_box else \
        np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    pts = cv2.transform((part * [w, h])[None].astype(np.float32), M)[0]
    (x0, y0), (x1, y1) = pts.min(0) / size, pts.max(0) / size
    return photo, ((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0)


@pytest.mark.parametrize("corner_box", [True, False], ids=["corner-index boxes", "whole-card boxes"])
def test_a_labelled_set_of_close_ups_is_read_as_the_boxes_it_has(tmp_path, namikopy_cards, corner_box):
    # phone photos of one card each: corner-index boxes there are large (here 3% of the photo), so
    # their size alone does not say whether they box indices or cards; the card outlines do
    folder = tmp_path / "labelled"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    codes = list(namikopy_cards)
    (folder / "classes.txt").write_text("\n".join(codes))
    for k, code in enumerate(codes):
        photo, (cx, cy, bw, bh) = _close_up(namikopy_cards[code], corner_box)
        assert not corner_box or bw * bh > 0.025
        cv2.imwrite(str(folder / "images" / f"{code}.jpg"), photo)
        (folder / "labels" / f"{code}.txt").write_text(f"{k} {cx:.5f} {cy:.5f} {bw:.5f} {bh:.5f}\n")
    cards = collect("namikopy", labelled=folder, allow_missing=True)
    # 10, 11 and 12: a red band across the card splits its outline; their cards are not found
    assert sorted(cards.shown()) == sorted(c for c in codes if c not in ("10", "11", "12"))
    for code, (flat,) in cards.flat.items():
        ref = cv2.resize(namikopy_cards[code], (art.CARD_W, art.CARD_H)).astype(float)
        best = min(np.abs(f.astype(float) - ref).mean() for f in (flat, cv2.rotate(flat, cv2.ROTATE_180)))
        others = np.mean([np.abs(cv2.resize(namikopy_cards[c], (art.CARD_W, art.CARD_H)).astype(float) - ref).mean()
                          for c in codes if c != code])
        assert best < 0.5 * others, code        # the whole card, not its corner blown up to a card's size


def test_a_reader_of_a_deck_printed_light_on_dark_reads_the_negative_of_each_view(tmp_path):
    for name in ("reader-namikopy-face.onnx",):
        (tmp_path / name).write_bytes((MODELS / name).read_bytes())
        meta = json.loads((MODELS / name).with_suffix(".json").read_text())
        (tmp_path / name).with_suffix(".json").write_text(json.dumps({**meta, "negative": True}))
    views = [np.random.default_rng(k).integers(0, 256, (96, 96, 3)).astype(np.uint8) for k in range(3)]
    plain = IndexReader(MODELS / "reader-namikopy-face.onnx")
    negative = IndexReader(tmp_path / "reader-namikopy-face.onnx")
    assert negative.negative and not plain.negative
    assert np.allclose(negative.probabilities(views), plain.probabilities([255 - v for v in views]), atol=1e-6)


def test_a_tiny_deck_is_taught_end_to_end_and_read_where_decks_are(tmp_path, home, namikopy_cards, capsys):
    folder = write_cards(tmp_path / "cards", namikopy_cards, {"TURKEY": "turkey_front.png", "10": "10-a.jpg"})
    (home / "decks" / ".gone.part-999999999").mkdir(parents=True)       # left by a killed teaching
    assert main(["teach", "fam", "--like", "namikopy", "--cards", str(folder), "--minutes", "0.1", "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "deck fam ready: read" in said and "held-back views right" in said
    assert f"look over the pictures it learnt from: {decks.find('fam').path / 'cards.png'}" in said
    deck = decks.find("fam")
    assert deck.like == "namikopy" and sorted(deck.codes) == sorted(namikopy_cards)
    assert deck.meta["held_back"]["right"] >= 0.8 * deck.meta["held_back"]["views"]
    assert deck.meta["held_back"]["wrong"] <= 0.02 * deck.meta["held_back"]["views"]
    assert {p.name for p in (deck.path / "cards").iterdir()} >= {"TURKEY.png", "10.png"}
    assert (deck.path / "README.md").read_text().startswith("# Deck fam")
    assert cv2.imread(str(deck.path / "cards.png")).shape[1] == 13 * (4 + 125 + 2)   # 13 of the 15 a row
    assert "`cards.png` shows every picture it learnt from" in (deck.path / "README.md").read_text()
    assert deck.meta["detector"]["negative"] is False       # white cards: the pictures as they are
    assert "face-up cards, with" in (deck.path / "README.md").read_text()
    assert not [p for p in (home / "decks").iterdir() if p.name.startswith(".")]
    # the deck's own readers, and the built-in one's layout
    reader = TableReader("fam")
    assert reader.deck == "namikopy" and reader.name == "fam" and reader.reader.path.parent == deck.path
    assert TableReader(**reader.settings()).reader.path == reader.reader.path
    main(["decks"])
    assert "fam: like namikopy, 15 cards" in capsys.readouterr().out
    # a card lying on a table, read with --deck fam
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), on_table([namikopy_cards["FLAMINGO"]], seed=3))
    assert main(["detect", "--deck", "fam", "--json", "--threshold", "0.3", str(photo)]) == 0
    read = json.loads(capsys.readouterr().out.splitlines()[0])
    assert [c["card"] for c in read["cards"]][:1] == ["FLAMINGO"]
    # `warref run` takes a taught deck only for a game played with the deck it is like
    assert main(["run", "--game", "woolly", "--players", "A,B", "--deck", "fam", "--camera", str(photo)]) == 2
    assert "deck 'fam' is like the namikopy deck; woolly is played with the woolly deck" in capsys.readouterr().err
    # the same name again: refused unless --replace; an unknown deck: named with the ones there are
    assert main(["teach", "fam", "--like", "namikopy", "--cards", str(folder), "--quiet"]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["detect", "--deck", "nosuch", str(photo)]) == 2
    err = capsys.readouterr().err
    assert "unknown deck 'nosuch'" in err and "fam" in err
    # forgotten: gone from the list and from --deck; warref's own decks and unknown ones refused
    assert main(["decks", "--forget", "standard"]) == 2
    assert "one of warref's own decks" in capsys.readouterr().err
    assert main(["decks", "--forget", "nosuch"]) == 2
    assert "unknown deck 'nosuch'" in capsys.readouterr().err
    assert main(["decks", "--forget", "fam"]) == 0
    assert f"deck fam forgotten ({deck.path} removed)" in capsys.readouterr().out
    assert not deck.path.exists() and decks.taught_decks() == [] and not list((home / "decks").iterdir())
    assert main(["detect", "--deck", "fam", str(photo)]) == 2


def test_a_deck_printed_light_on_dark_reads_the_backs_on_its_table(tmp_path, home, namikopy_cards, monkeypatch):
    # no back photographed: the table's backs are taken to be warref's own, and the deck's readers,
    # which read each view as its negative, learn them (else no war's face-down cards are counted)
    dark = {code: 255 - card for code, card in namikopy_cards.items()}
    # 16 made-up frames a card, whatever the machine's load (teaching fits as many as its time allows;
    # measured: 12 still read all 5 backs, 8 only 3), and 8 made-up tables for the detector's polarity
    # (as in the test of it below)
    monkeypatch.setattr("vision.teach.VIEWS", 16)
    monkeypatch.setattr("vision.teach.TABLES", 8)
    deck = teach("night", "namikopy", cards=write_cards(tmp_path / "dark", dark), minutes=3)
    assert deck.meta["frames_per_card"] == 16 and deck.meta["detector"]["tables"] == 8
    reader = TableReader("night", LIVE_ONE)
    assert reader.reader.negative and reader.detector.negative
    said = []
    for back in art.backs("namikopy"):
        picture = on_table([dark["7"], cv2.cvtColor(art.on_white(back.image), cv2.COLOR_RGB2BGR)], seed=2)
        said.append(sorted(r.card for r in reader.read(picture) if r.confidence >= reader.reader.threshold))
    # (measured: 5 of the 5 backs read as backs with 12 or 16 frames a card, 3 with 8; none before the
    # readers learnt them, and never a card)
    assert sum(cards == ["7", "BACK"] for cards in said) >= 0.75 * len(said)
    assert all(cards in (["7"], ["7", "BACK"]) for cards in said), said


def test_the_detector_looks_at_the_negative_of_a_deck_printed_light_on_dark(namikopy_cards):
    from vision.detector import Detector
    from vision.teach import Cards, detector_polarity, found, tables
    image = on_table([namikopy_cards["7"]], seed=1)
    plain, negative = Detector(MODELS / "detector.onnx"), Detector(MODELS / "detector.onnx", negative=True)
    assert [d.score for d in negative(image)] == [d.score for d in plain(255 - image)]
    # warref's own Namikopy art, and the same cards printed light on dark (their negatives)
    light, dark = Cards("namikopy", codes_of("namikopy")), Cards("namikopy", codes_of("namikopy"))
    for code, card in namikopy_cards.items():
        light.add(code, f"{code}.png", card)
        dark.add(code, f"{code}.png", 255 - card)
    light_tables, dark_tables = tables(light, 8, seed=3), tables(dark, 8, seed=3)
    assert len(dark_tables) == 8 and all(labels for _, labels in dark_tables)
    seen_light = detector_polarity(MODELS / "detector.onnx", light_tables)
    seen_dark = detector_polarity(MODELS / "detector.onnx", dark_tables)
    assert not seen_light["negative"] and seen_dark["negative"]
    assert seen_light["plain"]["found"] >= 0.8 * seen_light["plain"]["cards"]
    assert seen_dark["negatives"]["found"] > seen_dark["plain"]["found"]
    assert found(plain, dark_tables) == seen_dark["plain"]


def test_a_sheet_shows_every_picture_a_deck_learnt_from_and_the_cards_without_one(namikopy_cards):
    from vision.teach import Cards, sheet
    cards = Cards("namikopy", codes_of("namikopy"))
    cards.add("1", "1.png", namikopy_cards["1"])
    cards.add("2", "2.png", namikopy_cards["2"])
    cards.add("2", "2-b.png", 255 - namikopy_cards["2"])        # a second photo of the 2
    picture = sheet(cards, width=50)                              # tiles 50 x 70, a caption, a 3 px margin
    tile_w, tile_h = 50 + 6, 70 + 22 + 6
    assert picture.shape == (2 * tile_h, 13 * tile_w, 3)          # 15 codes and one more photo: 16 tiles
    first, second, third, fourth = (picture[3:73, 3 + k * tile_w:53 + k * tile_w].astype(int) for k in range(4))
    small = cv2.resize(namikopy_cards["2"], (50, 70), interpolation=cv2.INTER_AREA).astype(int)
    assert np.abs(second - small).mean() < 2 and np.abs(third - (255 - small)).mean() < 2
    assert np.abs(first - cv2.resize(namikopy_cards["1"], (50, 70), interpolation=cv2.INTER_AREA)).mean() < 2
    assert np.median(fourth) == 200                               # the 3: no photo
    assert (picture[73:95, 3:53] < 128).any()                     # a caption under each picture


def test_a_deck_that_read_few_of_its_held_back_views_says_what_to_check(tmp_path):
    from web.teach import ready_sentence
    poor = decks.Taught("fam", "standard", tmp_path / "fam", {"codes": ["2C"], "held_back": {
        "views": 612, "right": 72, "wrong": 0, "threshold": 0.5}})
    good = decks.Taught("fam", "standard", tmp_path / "fam", {"codes": ["2C"], "held_back": {
        "views": 528, "right": 504, "wrong": 2, "threshold": 0.5}})
    assert "72 of 612" in poor.warning() and str(tmp_path / "fam" / "cards") in poor.warning()
    assert good.warning() is None
    (tmp_path / "fam").mkdir()
    (tmp_path / "fam" / "cards.png").write_bytes(b"")       # a deck taught since the sheet: named
    assert f"({tmp_path / 'fam' / 'cards.png'})" in poor.warning()
    assert ready_sentence(poor).startswith("Deck fam ready: read 72 of 612") and "look at the card pictures" in ready_sentence(poor)
    assert "look at" not in ready_sentence(good)

    # a deck whose cards the detector seldom finds on its made-up tables (as it looks at them): said too
    seen = {"negative": True, "tables": 40, "plain": {"cards": 124, "found": 30, "stray": 7},
            "negatives": {"cards": 124, "found": 119, "stray": 8}}
    found_well = decks.Taught("fam", "standard", tmp_path / "fam", {**good.meta, "detector": seen})
    assert found_well.warning() is None
    seen = {**seen, "negative": False}
    found_poorly = decks.Taught("fam", "standard", tmp_path / "fam", {**good.meta, "detector": seen})
    assert "found only 30 of 124 of these cards" in found_poorly.warning()
    assert "look at" not in found_poorly.warning() and "card finder" in ready_sentence(found_poorly)
    both = decks.Taught("fam", "standard", tmp_path / "fam", {**poor.meta, "detector": seen})
    assert "72 of 612" in both.warning() and "30 of 124" in both.warning()


def _copied_deck(home, name: str, like: str, pictures: dict[str, np.ndarray]) -> None:
    """A taught deck made without teaching: the built-in readers of ``like`` copied, and ``pictures``
    (RGB by code) as the cards it learned from (teaching itself is tested above; this is its folder)."""
    import shutil
    folder = home / "decks" / name
    (folder / "cards").mkdir(parents=True)
    for path in MODELS.glob(f"reader-{like}*"):
        shutil.copy(path, folder / path.name)
    for code, rgb in pictures.items():
        cv2.imwrite(str(folder / "cards" / f"{code}.png"), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    (folder / "deck.json").write_text(json.dumps({"name": name, "like": like, "codes": sorted(pictures),
                                                  "detector": {"negative": False}}))


def test_the_demo_plays_a_taught_deck_with_its_own_cards_and_readers(tmp_path, home, capsys):
    from web.demo import run_sync
    cardsjs = {f.code: art.on_white(f.image) for f in art.faces("standard") if f.artwork == "cardsjs"}
    _copied_deck(home, "grans", "standard", cardsjs)
    summary, _, table = run_sync(tmp_path / "demo.db", seed=3, battles=2, deck="grans")
    assert (summary["deck"], summary["battles"], summary["wrong_rulings"]) == ("grans", 2, 0)
    # the table draws the deck's own picture of a card, not warref's svg-cards art of it
    own = cv2.resize(cv2.cvtColor(cardsjs["QH"], cv2.COLOR_RGB2BGR), table.table.sprite("QH").shape[1::-1],
                     interpolation=cv2.INTER_AREA).astype(float)
    drawn = table.table.sprite("QH")[..., :3]
    built_in = table.table.sprite("QH", "svg-cards")[..., :3]
    inner = (slice(10, -10), slice(10, -10))
    assert np.abs(drawn - own)[inner].mean() < 0.5 * np.abs(built_in - own)[inner].mean()
    assert summary["stalled"] is False
    # cards it cannot read (blank faces): the players show them again, and give up after give_up times
    _copied_deck(home, "blank", "standard", {code: np.full_like(rgb, 235) for code, rgb in cardsjs.items()})
    summary, _, table = run_sync(tmp_path / "blank.db", seed=3, battles=2, deck="blank", give_up=3)
    assert summary["stalled"] is True and summary["battles"] == 0 and summary["timeouts"] == 3
    # a deck the demo cannot play, or none by that name: one clear line, exit 2
    _copied_deck(home, "wool", "woolly", {"1R": cardsjs["AS"]})
    assert main(["demo", "--no-browser", "--deck", "wool"]) == 2
    assert main(["demo", "--no-browser", "--deck", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "deck 'wool' is like the woolly deck; the demo plays Classic War" in err
    assert "unknown deck 'nosuch'" in err and "grans" in err
