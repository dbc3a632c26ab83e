from collections import Counter

import pytest

from referee import OptionError, SetupError, Table, UnknownCard, get_game
from referee.deck import load_deck, load_deck_file
from referee.options import parse_option_args


def test_woolly_deck_is_the_71_cards_of_the_rulebook():
    deck = load_deck("woolly")
    assert deck.size == 71
    kinds = Counter()
    for c in deck.cards:
        kinds[c.kind] += c.count
    assert kinds == {"number": 60, "action": 8, "war": 3}
    values = Counter()
    for c in deck.cards:
        if c.kind == "number":
            values[c.value] += c.count
    assert values == {v: 5 for v in range(1, 13)}
    assert deck.count(code="STEAL") == 4 and deck.count(code="REVEAL") == 4 and deck.count(code="WAR") == 3


def test_codes_read_with_or_without_colour_in_any_case():
    deck = load_deck("woolly")
    green8 = deck.read(" 8g ")
    assert (green8.code, green8.value, green8.exact, green8.name) == ("8G", 8, True, "green 8")
    any8 = deck.read("8")
    assert any8.value == 8 and not any8.exact and len(any8.members) == 5
    assert deck.read("war").kind == "war"
    for bad in ("13R", "0", "8X", "", "JOKER"):
        with pytest.raises(UnknownCard, match="Woolly Warfare cards are numbers 1-12"):
            deck.read(bad)


def test_cards_that_cannot_be_on_the_table_together():
    deck = load_deck("woolly")
    r = deck.read
    assert deck.cannot_coexist([r("8G"), r("8R"), r("8"), r("8"), r("8")]) is None
    assert "only one green 8" in deck.cannot_coexist([r("8G"), r("8G")])
    assert "only 5 cards that read 8" in deck.cannot_coexist([r("8G")] + [r("8")] * 5)
    assert deck.cannot_coexist([r("WAR")] * 3) is None
    assert "only 3 War cards" in deck.cannot_coexist([r("WAR")] * 4)


def test_a_family_can_describe_its_own_deck(tmp_path):
    good = tmp_path / "mini.toml"
    good.write_text('id = "mini"\ncards = [{ code = "1", kind = "number", value = 1, count = 4 }]\n')
    assert load_deck_file(good).size == 4
    bad = tmp_path / "bad.toml"
    bad.write_text('id = "bad"\ncards = [{ kind = "number" }]\n')
    with pytest.raises(SetupError, match="not valid"):
        load_deck_file(bad)


def test_options_have_defaults_and_refuse_unknown_names_and_bad_values():
    game = get_game("woolly")
    assert game.resolve_options({}) == {"timed_count": "hand_and_herd", "timed_tie": "shared",
                                        "max_battles": None}
    assert game.resolve_options({"TIMED_COUNT": "Herd_Only", "max_battles": "50"}) == {
        "timed_count": "herd_only", "timed_tie": "shared", "max_battles": 50}
    assert game.resolve_options({"max_battles": "off"})["max_battles"] is None
    with pytest.raises(OptionError, match="no rule option 'timed'; its options are timed_count"):
        game.resolve_options({"timed": "x"})
    with pytest.raises(OptionError, match="must be one of hand_and_herd, herd_only"):
        game.resolve_options({"timed_count": "hand"})
    for bad in ("-3", "ten", "1.5"):
        with pytest.raises(OptionError, match="max_battles"):
            game.resolve_options({"max_battles": bad})
    with pytest.raises(OptionError, match="KEY=VALUE"):
        parse_option_args(["max_battles"])


def test_every_option_explains_itself_for_the_rule_sheet():
    game = get_game("woolly")
    sheet = game.rule_sheet(game.resolve_options({"timed_count": "herd_only"}))
    assert len(sheet) == len(game.options)
    assert "Cards that count when time is up: Herd only (only the herd pile, as the official rulebook says). " \
        "When a timed game or the battle cap ends the game, which cards count toward the most cards." in sheet


def test_every_option_and_choice_has_words_for_a_player():
    """What the set-up and the rule sheet show: a label for every option of every game and for each of
    its choices, never a key name (no snake_case)."""
    from referee.games import GAMES
    for game in GAMES.values():
        for o in game.options:
            assert o.label and o.label[0].isupper() and "_" not in o.label, (game.id, o.name)
            for c in o.choices:
                label = (o.choice_labels or {}).get(c)
                assert label and label[0].isupper() and "_" not in label, (game.id, o.name, c)
            for line in game.rule_sheet(game.resolve_options({})):
                assert "_" not in line and " = " not in line, line


def test_table_setup_errors():
    with pytest.raises(SetupError, match="2-3 players"):
        Table("woolly", ["Alex"])
    with pytest.raises(SetupError, match="2-3 players"):
        Table("woolly", ["A", "B", "C", "D"])
    with pytest.raises(SetupError, match="same name"):
        Table("woolly", ["Alex", "alex"])
    with pytest.raises(SetupError, match="Unknown game"):
        Table("poker", ["Alex", "Olivia"])


def test_the_numbers_of_players_are_said_as_the_game_allows_them():
    from referee import get_game
    assert get_game("classic").counts_text() == "2-4" and get_game("casino").counts_text() == "1-7"
    guerra = get_game("guerra")
    assert guerra.allowed_counts() == (2, 4, 6) and guerra.counts_text() == "2, 4 or 6"
    for n in (3, 5):
        with pytest.raises(SetupError, match="teams of 2 or 3"):
            guerra.check_players([f"P{i}" for i in range(n)])
    with pytest.raises(SetupError, match="Guerra is for 2, 4 or 6 players .got 7."):
        guerra.check_players([f"P{i}" for i in range(7)])


def test_every_game_has_a_how_to_play_sheet_and_guerra_explains_its_words():
    """Issue 59: a short "How to play" for a child of ten, in the one place each game's words live."""
    from referee.games import GAMES
    for game in GAMES.values():
        assert len(game.how_to_play) >= 4, game.id
        for paragraph in game.how_to_play:
            assert paragraph[0].isupper() and paragraph.rstrip().endswith((".", "!", "?")), (game.id, paragraph)
            assert "_" not in paragraph and len(paragraph.split()) <= 70, (game.id, paragraph)
    words = GAMES["guerra"].words
    for term in ("confronto", "rodada", "Ofensiva", "encoberta", "troca", "abstenção", "Fim de Guerra", "Guerra Fria"):
        assert term in words and words[term], term
    assert "wrong call costs" in words["troca"]
