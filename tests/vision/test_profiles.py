"""One profile per deck (vision/profiles.py): what vision and the command line know of a deck
comes from it, for the built-in decks and for a deck a family taught warref."""
import json

import pytest

from referee.deck import load_deck
import vision.teach
from vision import decks, geometry, words
from vision.decks import profile
from vision.profiles import BUILT_IN
from vision.reader import MODELS, TableReader
from web import cli, teach


def test_every_built_in_deck_has_a_profile_with_its_reader_its_corner_and_its_codes():
    assert tuple(BUILT_IN) == decks.BUILT_IN == ("standard", "woolly", "namikopy")
    for name, deck in BUILT_IN.items():
        assert profile(name) is deck and deck.like == name and deck.folder is None and not deck.negative
        assert (MODELS / deck.reader).is_file()
        assert geometry.CORNER[name] == deck.corner
        assert deck.codes == [c.code for c in load_deck(name).cards]
    assert words.WORDS == {"standard": {"JOKER": "JOKER"}}
    assert [n for n, d in BUILT_IN.items() if d.more_art] == ["standard"]
    # only the standard deck may lack cards (its jokers), is found by its index alone and is photographed
    assert {n: d.optional for n, d in BUILT_IN.items() if d.optional} == {"standard": ("JOKER",)}
    assert [n for n, d in BUILT_IN.items() if d.index_alone] == ["standard"]
    assert [n for n, d in BUILT_IN.items() if d.real_photos] == ["standard"]


def test_warref_teach_and_the_teaching_page_take_a_decks_codes_and_its_optional_ones_from_its_profile():
    for name, deck in BUILT_IN.items():
        assert vision.teach.codes_of(name) == teach.codes_of(name) == deck.codes
        assert teach.optional_codes(name) == {teach.BACK, *deck.optional}
    assert vision.teach.reader_files("woolly")[0] == BUILT_IN["woolly"].reader
    with pytest.raises(vision.teach.TeachError, match="--like 'night': choose one of standard, woolly, namikopy"):
        vision.teach.codes_of("night")


def test_a_taught_deck_has_its_like_decks_profile_with_its_own_folder_codes_and_polarity(tmp_path, monkeypatch):
    monkeypatch.setenv("WARREF_HOME", str(tmp_path))
    folder = tmp_path / "decks" / "night"
    folder.mkdir(parents=True)
    (folder / "deck.json").write_text(json.dumps({"name": "night", "like": "woolly", "codes": ["1R", "2R"],
                                                  "detector": {"negative": True}}))
    deck = profile("night")
    assert (deck.name, deck.like, deck.folder, deck.negative, deck.codes) == ("night", "woolly", folder, True,
                                                                              ["1R", "2R"])
    assert (deck.reader, deck.corner, deck.words) == (BUILT_IN["woolly"].reader, BUILT_IN["woolly"].corner, {})
    (tmp_path / "decks" / "gran").mkdir()
    (tmp_path / "decks" / "gran" / "deck.json").write_text(json.dumps({"name": "gran", "like": "standard",
                                                                       "codes": ["AS", "JOKER"]}))
    for name, like in (("night", "woolly"), ("gran", "standard")):
        taught, built_in = profile(name), BUILT_IN[like]
        assert (taught.optional, taught.index_alone, taught.real_photos) == \
            (built_in.optional, built_in.index_alone, built_in.real_photos)
    with pytest.raises(ValueError, match="unknown deck 'nosuch'.*night"):
        profile("nosuch")
    with pytest.raises(ValueError, match="unknown deck"):
        TableReader("nosuch")


def test_detect_and_eval_share_the_photo_steps_flags():
    parser = cli.build_parser()
    steps = ["--no-cut-cards", "--no-indices", "--no-words", "--without", "zoom", "--jobs", "3"]
    detect = parser.parse_args(["detect", "photo.jpg", *steps])
    evaluate = parser.parse_args(["eval", *steps])
    for args in (detect, evaluate):
        assert (args.cut_cards, args.indices, args.words, args.without, args.jobs) == (False, False, False, "zoom", 3)
        assert cli.photo_config(args) == cli.photo_config(detect)


def test_synth_names_the_decks_with_art_and_the_one_more_art_draws(capsys):
    assert cli.main(["synth", "--deck", "mine", "--out", "unused", "--scenes", "1"]) == 2
    assert "no card art for deck 'mine'; decks: standard, woolly, namikopy" in capsys.readouterr().err
    assert cli.main(["synth", "--deck", "woolly", "--more-art", "--out", "unused", "--scenes", "1"]) == 2
    assert "--more-art adds designs for the standard deck only" in capsys.readouterr().err
