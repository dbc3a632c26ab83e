"""Classic War through the Python API: deals, stakes, the won pile of the race, refusals, restore,
and the readings warref makes where the document is silent (docs/classic.md)."""
import random

import pytest

from referee import IllegalEvent, OptionError, SetupError, Table
from referee.events import parse_event
from referee.games.classic import deal, rank_stake
from referee.sim.classic import ClassicSim

from conftest import down, flip, play, recount


def flips(**cards):
    return {"type": "flips", "cards": cards}


def stacks(table):
    return {n: (p.stack, p.won) for n, p in table.state.players.items()}


@pytest.mark.parametrize("players, jokers, each, aside", [
    (2, False, 26, 0), (3, False, 17, 1), (4, False, 13, 0),
    (2, True, 27, 0), (3, True, 18, 0), (4, True, 13, 2)])
def test_deals_follow_the_document(players, jokers, each, aside):
    names = ["Alex", "Olivia", "Sam", "Mia"][:players]
    table = Table("classic", names, {"jokers": "on" if jokers else "off"})
    assert set(table.state.counts().values()) == {each}
    assert table.state.aside == aside
    assert table.state.card_total() == (54 if jokers else 52)
    assert deal(54 if jokers else 52, players) == (each, aside)


def test_rank_sets_the_stake_table():
    assert [rank_stake(v) for v in range(2, 16)] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11, 11]


def test_players_and_options_are_checked():
    with pytest.raises(SetupError, match="2-4 players"):
        Table("classic", ["A", "B", "C", "D", "E"])
    with pytest.raises(OptionError, match="war_down must be one of 1, 3, rank"):
        Table("classic", ["A", "B"], {"war_down": "2"})
    with pytest.raises(OptionError, match="short must be one of"):
        Table("classic", ["A", "B"], {"short": "maybe"})


def test_refused_events_change_nothing_and_can_says_so():
    table = Table("classic", ["Alex", "Olivia"])
    play(table, flip("Alex", "QS"))
    before, log = table.state.snapshot(), list(table.log)
    for bad in (flip("Alex", "KS"), flip("Olivia", "QS"), flip("Olivia", "JOKER"), down("Olivia", 1),
                flips(Olivia="2C", Bob="3C"), flips(Olivia="2C", olivia="3C"), recount("Olivia", count=-1),
                {"type": "choose", "seat": "Alex", "opponent": "Olivia"}):
        assert not table.can(bad)
        with pytest.raises(IllegalEvent):
            table.submit(bad)
        assert table.state.snapshot() == before and table.log == log
    assert table.can(flip("Olivia", "QH"))


def test_a_flips_event_is_checked_as_a_whole():
    """Two cards in one frame: if one of them is impossible, neither is taken."""
    table = Table("classic", ["Alex", "Olivia", "Sam"])
    with pytest.raises(IllegalEvent, match="only one ace of spades"):
        table.submit(flips(Alex="AS", Olivia="AS"))
    assert table.state.middle == []
    play(table, flips(Alex="AS", Olivia="AH"))
    assert table.state.snapshot()["flips"] == {"Alex": "AS", "Olivia": "AH"}


def test_suits_never_matter_equal_ranks_of_any_suit_make_a_war():
    table = Table("classic", ["Alex", "Olivia"])
    rulings = play(table, flips(Alex="10S", Olivia="10H"))
    assert rulings[0].type == "war" and table.state.phase == "down"


def test_race_wins_go_to_the_face_up_pile_and_come_back_turned_over():
    table = Table("classic", ["Alex", "Olivia"], {"war": "race"})
    play(table, recount("Alex", count=2), flips(Alex="KS", Olivia="3H"))
    assert stacks(table)["Alex"] == (1, 2)
    play(table, flips(Alex="QS", Olivia="2H"))
    assert stacks(table)["Alex"] == (0, 4)
    rulings = play(table, flips(Alex="5S", Olivia="9H"))
    assert rulings[0].type == "turn_over"
    assert stacks(table)["Alex"] == (3, 0) and stacks(table)["Olivia"] == (23, 2)


def test_race_only_the_tied_players_race_and_others_wait():
    table = Table("classic", ["Alex", "Olivia", "Sam"], {"war": "race"})
    play(table, flips(Alex="9S", Olivia="9H", Sam="2C"))
    assert table.state.racers == ["Alex", "Olivia"]
    with pytest.raises(IllegalEvent, match="isn't in the race"):
        table.submit(flip("Sam", "AC"))
    rulings = play(table, flip("Olivia", "AC"))
    assert rulings[0].data["winner"] == "Olivia" and rulings[0].data["cards"] == 4


def test_a_racer_who_runs_dry_leaves_the_race_to_the_other():
    table = Table("classic", ["Alex", "Olivia"], {"war": "race"})
    play(table, recount("Alex", count=2), flips(Alex="9S", Olivia="9H"), flip("Olivia", "3C"))
    rulings = play(table, flip("Alex", "4D"))
    assert [r.type for r in rulings][:3] == ["flip", "short", "battle"]
    assert rulings[2].data["winner"] == "Olivia" and rulings[2].data["cards"] == 4


def test_last_card_stands_then_the_opponent_runs_dry_too_is_a_draw():
    table = Table("classic", ["Alex", "Olivia"])
    play(table, recount("Alex", count=3), recount("Olivia", count=1), flips(Alex="9S", Olivia="9H"),
         down("Alex", 1))
    rulings = play(table, flip("Alex", "9C"))       # Alex's last card ties Olivia's standing 9 again
    assert rulings[-1].type == "game_over" and rulings[-1].data["reason"] == "draw"
    assert table.state.card_total() == 52 + table.state.adjustment


def test_fewest_cards_fix_is_only_for_three_down():
    one = Table("classic", ["Alex", "Olivia"], {"fewest_cards_fix": "on"})
    play(one, recount("Olivia", count=2), flips(Alex="5S", Olivia="5H"))
    assert one.state.owed == {"Alex": 1, "Olivia": 0}     # one down: Olivia just turns her last card


def test_three_players_one_set_aside_is_never_anyone_s():
    table = Table("classic", ["Alex", "Olivia", "Sam"])
    sim_cards = sum(table.state.counts().values())
    assert sim_cards == 51 and table.state.card_total() == 52


def test_undo_and_restore_replay_the_log():
    table = Table("classic", ["Alex", "Olivia"], {"war_down": "3"})
    play(table, flips(Alex="7S", Olivia="7H"), down("Alex", 3))
    mid = table.state.snapshot()
    play(table, down("Olivia", 3), flips(Alex="KS", Olivia="2H"))
    table.submit({"type": "undo"})
    table.submit({"type": "undo"})
    assert table.state.snapshot() == mid
    again = Table.restore("classic", ["Alex", "Olivia"], table.options, table.log)
    assert again.state.snapshot() == mid


def test_an_undo_names_the_player_as_set_up_whatever_the_case_the_event_was_typed_in():
    table = Table("classic", ["Alex", "Olivia"])
    play(table, flip(" alex ", "AS"))                     # seats are named in any case (the log keeps it as typed)
    undo = table.submit({"type": "undo"})[0]
    assert str(undo.text) == "Undone: Alex's flip (card AS)."
    assert undo.data["undone"] == {"type": "flip", "seat": "alex", "card": "AS"}


def test_the_flips_event_parses_and_refuses_bad_shapes():
    assert parse_event(flips(Alex=" AS ")).cards == {"Alex": "AS"}
    for bad in ({"type": "flips", "cards": []}, {"type": "flips", "cards": {"Alex": 3}},
                {"type": "flips"}):
        with pytest.raises(IllegalEvent):
            parse_event(bad)


def test_other_games_refuse_a_flips_event():
    table = Table("woolly", ["Alex", "Olivia"])
    with pytest.raises(IllegalEvent, match="no flips event"):
        table.submit(flips(Alex="8"))


def test_fixed_order_returns_can_cycle_forever_and_the_simulator_notices():
    loops = [ClassicSim(["A", "B"], random.Random(i), {"war_down": "3"}, returns="fixed").run()
             for i in range(60)]
    assert any(r.reason == "loop" and not r.finished for r in loops)
    assert any(r.reason == "last_standing" for r in loops)
