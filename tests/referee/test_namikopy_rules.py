"""Namikopy War rules through the Python API: what the golden transcripts can't show (playing pile
and face-up pile split, the verify/can/apply trio, refusals leaving the state untouched, options,
restore), plus the readings warref makes where the rule document is silent (docs/namikopy.md)."""
import pytest

from referee import IllegalEvent, SetupError, Table
from referee.events import parse_event

from conftest import flip, play


def down(seat, count=3):
    return {"type": "down", "seat": seat, "count": count}


def choose(seat, opponent):
    return {"type": "choose", "seat": seat, "opponent": opponent}


def recount(seat, count):
    return {"type": "recount", "seat": seat, "count": count}


def piles(table):
    return {n: (p.pile, p.won) for n, p in table.state.players.items()}


NAMES = ["Alex", "Olivia", "Sam", "Mia", "Jo"]


@pytest.mark.parametrize("players,each", [(2, 24), (3, 16), (4, 12), (5, 9)])
def test_everyone_gets_the_same_number_of_cards_the_rest_is_set_aside(players, each):
    table = Table("namikopy", NAMES[:players])
    assert set(table.state.counts().values()) == {each}
    assert table.state.set_aside == 48 - each * players
    assert table.state.card_total() == table.state.expected_total() == each * players


def test_deal_options_war_cards_cards_and_the_standard_deck():
    assert Table("namikopy", NAMES[:2], {"war_cards": "on"}).state.counts()["Alex"] == 25   # 51 cards
    assert Table("namikopy", NAMES[:4], {"cards": "22"}).state.set_aside == 2
    assert Table("namikopy", NAMES[:3], {"deck": "standard"}).state.counts()["Alex"] == 17   # 52
    assert Table("namikopy", NAMES[:3], {"deck": "standard", "war_cards": "on"}).state.set_aside == 0
    with pytest.raises(SetupError, match="only 48 cards"):
        Table("namikopy", NAMES[:2], {"cards": "49"})
    with pytest.raises(SetupError, match="at least one"):
        Table("namikopy", NAMES[:5], {"cards": "4"})
    with pytest.raises(SetupError, match="2-5 players"):
        Table("namikopy", ["Alex"])


def test_verify_can_apply_trio_leaves_state_alone_on_refusal():
    table = Table("namikopy", NAMES[:2])
    state = table.state
    before = state.snapshot()
    for bad in (flip("Alex", "MALLARD"), flip("Alex", "13"), down("Alex"), choose("Alex", "Olivia"),
                {"type": "action", "seat": "Alex", "card": "STEAL"}, recount("Alex", -1)):
        event = parse_event(bad)
        assert not state.can(event)
        with pytest.raises(IllegalEvent):
            state.apply(event)
        assert state.snapshot() == before
    good = parse_event(flip("Alex", "8"))
    assert state.can(good) and state.snapshot() == before
    state.apply(good)
    assert state.snapshot()["flips"] == {"Alex": "8"}


def test_refusals_during_a_war_change_nothing():
    table = Table("namikopy", NAMES[:3], {"war_cards": "on"})
    play(table, flip("Alex", "9"), flip("Olivia", "9"), flip("Sam", "2"))
    before, log = table.state.snapshot(), list(table.log)
    for bad in (flip("Sam", "3"), down("Sam"), flip("Alex", "4"), down("Alex", 4), down("Alex", 0),
                choose("Alex", "Olivia"), recount("Alex", 3), {"type": "time_up", "extra": 1}):
        rulings = table.handle(bad)
        if bad["type"] == "time_up":
            continue
        assert rulings[0].type == "error" and rulings[0].text.endswith(".")
        assert table.state.snapshot() == before and table.log == log


def test_the_winner_takes_the_cards_onto_the_face_up_pile_others_take_their_own_back():
    table = Table("namikopy", NAMES[:3])
    play(table, flip("Alex", "8"), flip("Olivia", "5"), flip("Sam", "3"))
    assert piles(table) == {"Alex": (15, 3), "Olivia": (15, 0), "Sam": (15, 0)}
    play(table, flip("Alex", "9"), flip("Olivia", "9"), flip("Sam", "4"))
    assert piles(table)["Sam"] == (14, 1)           # the 4 went back, onto Sam's face-up pile
    rulings = play(table, down("Alex"), down("Olivia"), flip("Alex", "2"), flip("Olivia", "6"))
    assert rulings[0].data["winner"] == "Olivia" and rulings[0].data["cards"] == 10
    assert piles(table)["Olivia"] == (10, 10)


def test_a_tie_below_the_highest_is_no_war():
    table = Table("namikopy", NAMES[:3])
    rulings = play(table, flip("Alex", "4"), flip("Olivia", "4"), flip("Sam", "5"))
    assert rulings[0].type == "battle" and rulings[0].data["winner"] == "Sam"
    assert table.state.wars == 0


def test_the_face_up_pile_becomes_the_playing_pile_when_the_pile_runs_out():
    table = Table("namikopy", NAMES[:2], {"cards": "4"})
    rulings = play(table, flip("Alex", "9"), flip("Olivia", "2"), flip("Alex", "3"), flip("Olivia", "8"))
    assert [r.type for r in rulings] == ["battle", "reshuffle", "reshuffle", "prompt"]
    assert piles(table) == {"Alex": (2, 0), "Olivia": (2, 0)}


def test_short_player_lays_what_they_can_and_turns_the_last_card_up():
    table = Table("namikopy", NAMES[:2])
    play(table, recount("Olivia", 3), flip("Alex", "8"), flip("Olivia", "8"))
    assert table.state.need == {"Alex": 3, "Olivia": 1}
    with pytest.raises(IllegalEvent, match="lays 1 face down"):
        table.submit(down("Olivia", 2))
    play(table, down("Olivia", 1), down("Alex"))
    assert table.state.players["Olivia"].total == 1 and table.state.phase == "play"


def test_no_card_left_the_tied_card_stands():
    table = Table("namikopy", NAMES[:2])
    rulings = play(table, recount("Olivia", 1), flip("Alex", "8"), flip("Olivia", "8"))
    assert [r.type for r in rulings[:2]] == ["war", "short"]
    assert table.state.standing() == ["Olivia"]
    with pytest.raises(IllegalEvent, match="stands as the war card"):
        table.submit(flip("Olivia", "3"))
    rulings = play(table, down("Alex"), flip("Alex", "7"))
    assert rulings[0].data["winner"] == "Olivia" and rulings[0].data["cards"] == 6


def test_a_war_card_picks_the_opponent_and_the_pick_is_checked():
    table = Table("namikopy", NAMES[:4], {"war_cards": "on"})
    play(table, recount("Mia", 0), flip("Alex", "MALLARD"), flip("Olivia", "5"), flip("Sam", "12"))
    assert table.state.phase == "choose" and table.state.chooser == "Alex"
    for bad, why in ((choose("Alex", "Alex"), "can't go to war with Alex"), (choose("Alex", "Mia"), "out"),
                     (choose("Sam", "Olivia"), "so Alex chooses"), (flip("Olivia", "3"), "Not yet")):
        with pytest.raises(IllegalEvent, match=why):
            table.submit(bad)
    rulings = table.submit(choose("Alex", "sam"))
    assert rulings[0].data["fighters"] == ["Alex", "Sam"]
    assert piles(table)["Olivia"] == (11, 1)


def test_a_war_card_wins_over_a_tie_and_several_war_cards_fight_each_other():
    table = Table("namikopy", NAMES[:4], {"war_cards": "on"})
    rulings = play(table, flip("Alex", "4"), flip("Olivia", "TURKEY"), flip("Sam", "12"), flip("Mia", "12"))
    assert rulings[0].type == "war_card"
    table = Table("namikopy", NAMES[:4], {"war_cards": "on"})
    rulings = play(table, flip("Alex", "4"), flip("Olivia", "TURKEY"), flip("Sam", "12"), flip("Mia", "flamingo"))
    assert rulings[0].data["fighters"] == ["Olivia", "Mia"] and rulings[0].data["reason"] == "war_cards"


def test_a_war_card_as_the_deciding_card_restarts_the_war_and_a_standing_one_is_worth_nothing():
    table = Table("namikopy", NAMES[:2], {"war_cards": "on"})
    rulings = play(table, flip("Alex", "6"), flip("Olivia", "6"), down("Alex"), down("Olivia"),
                   flip("Alex", "MALLARD"), flip("Olivia", "12"))
    assert rulings[0].type == "war" and rulings[0].data["fighters"] == ["Alex", "Olivia"]
    assert table.state.wars == 2
    table = Table("namikopy", NAMES[:2], {"war_cards": "on"})
    rulings = play(table, recount("Alex", 1), flip("Alex", "MALLARD"), flip("Olivia", "2"), down("Olivia"),
                   flip("Olivia", "1"))
    assert rulings[0].data["winner"] == "Olivia"


def test_called_off_war_gives_everyone_their_cards_back_or_is_a_draw():
    table = Table("namikopy", NAMES[:2])
    rulings = play(table, recount("Alex", 1), recount("Olivia", 1), flip("Alex", "9"), flip("Olivia", "9"))
    assert [r.type for r in rulings][-2:] == ["called_off", "game_over"]
    assert table.state.result["reason"] == "draw" and table.state.counts() == {"Alex": 1, "Olivia": 1}


def test_time_up_finishes_the_war_and_sudden_death_only_for_the_tied():
    table = Table("namikopy", NAMES[:3], {"timed_tie": "sudden_death"})
    play(table, flip("Alex", "8"), flip("Olivia", "8"), {"type": "time_up"})
    assert not table.state.over
    play(table, flip("Sam", "2"), down("Alex"), down("Olivia"))
    rulings = play(table, flip("Alex", "5"), flip("Olivia", "1"))
    assert rulings[-1].type == "game_over" and rulings[-1].data["winner"] == "Alex"
    table = Table("namikopy", NAMES[:3], {"timed_tie": "sudden_death"})
    rulings = play(table, {"type": "time_up"})
    assert rulings[1].type == "tie" and table.state.fighters == ["Alex", "Olivia", "Sam"]


def test_max_battles_and_restore_and_undo():
    table = Table("namikopy", NAMES[:2], {"max_battles": "1"})
    rulings = play(table, flip("Alex", "3"), flip("Olivia", "7"))
    assert rulings[-1].data["reason"] == "max_battles" and rulings[-1].data["winner"] == "Olivia"
    table = Table("namikopy", NAMES[:3], {"war_cards": "on"})
    play(table, flip("Alex", "MALLARD"), flip("Olivia", "5"), flip("Sam", "12"), choose("Alex", "Olivia"),
         down("Alex", 2))
    again = Table.restore("namikopy", NAMES[:3], table.options, table.log)
    assert again.state.snapshot() == table.state.snapshot()
    earlier = Table.restore("namikopy", NAMES[:3], table.options, table.log[:3]).state.snapshot()
    play(table, {"type": "undo"}, {"type": "undo"})
    assert table.state.snapshot() == earlier


def test_the_rule_sheet_lists_every_option():
    from referee import get_game
    game = get_game("namikopy")
    lines = game.rule_sheet(game.resolve_options({}))
    assert [line.split(":")[0] for line in lines] == ["Cards", "WAR cards", "Cards in the game", "A tie when time is up",
                                                      "End after this many battles"]
