"""Casino War rules through the Python API: what the golden transcripts can't show (the chips and
the house's balance after every step, the verify/can/apply trio, options, restore), plus the
readings warref makes where the rule documents are silent (docs/casino.md)."""
import pytest

from referee import IllegalEvent, OptionError, SetupError, Table, get_game
from referee.events import parse_event
from referee.games.casino import surrender_loss
from referee.sim.casino import exact_house_edge

from conftest import flip, play


def bet(seat, amount, tie=None):
    return {"type": "bet", "seat": seat, "amount": amount, **({"tie": tie} if tie is not None else {})}


def war(table, seat="Alex"):
    return play(table, {"type": "go_to_war", "seat": seat}, {"type": "down", "seat": "Dealer", "count": 3})


def chips(table):
    return table.state.counts()


def conserved(table):
    """The house's balance is the exact negative of the players' change (between rounds)."""
    state = table.state
    assert state.on_table() == 0
    assert state.house == -(sum(chips(table).values()) - state.start_total - state.adjustment)
    assert state.chip_total() == state.expected_total()


@pytest.fixture
def alex():
    return Table("casino", ["Alex"])


@pytest.fixture
def two():
    return Table("casino", ["Alex", "Olivia"])


# ------------------------------------------------------------------ the rule's own example
def test_ten_units_staked_comes_back_as_ten_won_or_twenty_lost(alex):
    """'so ten units staked comes back as ten won or twenty lost and nothing in between'"""
    outcomes = {}
    for second, dealer in (("KH", "5C"), ("6H", "6C"), ("9H", "10C")):
        t = Table("casino", ["Alex"])
        play(t, bet("Alex", 10), flip("Alex", "8H"), flip("Dealer", "8S"))
        war(t)
        play(t, flip("Alex", second), flip("Dealer", dealer))
        outcomes[second] = chips(t)["Alex"] - 100
        conserved(t)
    assert outcomes == {"KH": 10, "6H": 10, "9H": -20}   # win, tie in the war, loss


def test_even_money_win_and_loss(alex):
    play(alex, bet("Alex", 10), flip("Alex", "QH"), flip("Dealer", "9C"))
    assert chips(alex) == {"Alex": 110} and alex.state.house == -10
    play(alex, bet("Alex", 30), flip("Alex", "4H"), flip("Dealer", "KC"))
    assert chips(alex) == {"Alex": 80} and alex.state.house == 20
    conserved(alex)


def test_suits_never_matter_and_aces_are_high(alex):
    r = play(alex, bet("Alex", 10), flip("Alex", "AC"), flip("Dealer", "KS"))
    assert r[0].data["result"] == "win"
    r = play(alex, bet("Alex", 10), flip("Alex", "2S"), flip("Dealer", "2H"))
    assert r[0].data["result"] == "tie"


def test_surrender_forfeits_half_and_the_odd_chip_goes_as_the_option_says():
    assert [surrender_loss(b, "house_keeps") for b in (10, 7, 1)] == [5, 4, 1]
    assert [surrender_loss(b, "player_keeps") for b in (10, 7, 1)] == [5, 3, 0]
    t = Table("casino", ["Alex"])
    play(t, bet("Alex", 7), flip("Alex", "JH"), flip("Dealer", "JC"), {"type": "surrender", "seat": "Alex"})
    assert chips(t) == {"Alex": 96}
    conserved(t)


def test_even_bets_refuses_an_odd_bet():
    t = Table("casino", ["Alex"], {"odd_surrender": "even_bets", "min_bet": 2})
    with pytest.raises(IllegalEvent, match="even"):
        t.submit(bet("Alex", 7))
    play(t, bet("Alex", 8), flip("Alex", "JH"), flip("Dealer", "JC"), {"type": "surrender", "seat": "Alex"})
    assert chips(t) == {"Alex": 96}


def test_tie_bet_pays_ten_to_one_on_a_tie_and_is_lost_otherwise(alex):
    play(alex, bet("Alex", 10, tie=2), flip("Alex", "5H"), flip("Dealer", "5C"))
    assert chips(alex) == {"Alex": 88 + 2 + 20}           # the stake back and 20 won; 10 still on the table
    play(alex, {"type": "surrender", "seat": "Alex"})
    assert chips(alex) == {"Alex": 115}
    play(alex, bet("Alex", 10, tie=5), flip("Alex", "9H"), flip("Dealer", "2C"))
    assert chips(alex) == {"Alex": 115 + 10 - 5}
    conserved(alex)


def test_tie_bet_then_war_keeps_the_tie_winnings(alex):
    play(alex, bet("Alex", 10, tie=1), flip("Alex", "5H"), flip("Dealer", "5C"))
    war(alex)
    play(alex, flip("Alex", "2H"), flip("Dealer", "KC"))
    assert chips(alex) == {"Alex": 100 + 10 - 20}
    conserved(alex)


def test_one_dealer_card_against_every_player(two):
    r = play(two, bet("Alex", 10), bet("Olivia", 20), flip("Alex", "JC"), flip("Olivia", "3H"),
             flip("Dealer", "10D"))
    assert [(x.data["seat"], x.data["result"]) for x in r if x.type == "battle"] == \
        [("Alex", "win"), ("Olivia", "loss")]
    assert chips(two) == {"Alex": 110, "Olivia": 80} and two.state.house == 10
    conserved(two)


def test_only_players_at_war_get_war_cards(two):
    play(two, bet("Alex", 10), bet("Olivia", 10), flip("Alex", "9C"), flip("Olivia", "9S"),
         flip("Dealer", "9H"), {"type": "surrender", "seat": "Alex"})
    war(two, "Olivia")
    assert not two.can(flip("Alex", "2C"))
    play(two, flip("Olivia", "3C"), flip("Dealer", "2C"))
    assert chips(two) == {"Alex": 95, "Olivia": 110}
    assert two.state.wars == 1 and two.state.battles == 1
    conserved(two)


# ------------------------------------------------------------------ refusals change nothing
REFUSED = [
    (bet("Alex", 101), "only 100 chips"),
    (bet("Alex", 95, tie=10), "only 100 chips"),
    (bet("Alex", 0), "minimum bet"),
    (flip("Alex", "QH"), "bets come before the deal"),
    ({"type": "surrender", "seat": "Alex"}, "no tie"),
    ({"type": "go_to_war", "seat": "Alex"}, "no tie"),
    (bet("Dealer", 10), "dealer doesn't bet"),
    ({"type": "down", "seat": "Dealer", "count": 3}, "No war"),
    ({"type": "recount", "seat": "Alex", "hand": 3}, "chips as count"),
    ({"type": "action", "seat": "Alex", "card": "STEAL"}, "no action event"),
]


@pytest.mark.parametrize("event,message", REFUSED, ids=[m for _, m in REFUSED])
def test_refusals_leave_state_untouched(alex, event, message):
    before, log = alex.state.snapshot(), list(alex.log)
    assert not alex.can(event)
    with pytest.raises(IllegalEvent, match=message):
        alex.submit(event)
    assert alex.state.snapshot() == before and alex.log == log


def test_refusals_in_the_deal_leave_state_untouched(two):
    play(two, bet("Alex", 10), bet("Olivia", 10), flip("Alex", "QH"))
    before = two.state.snapshot()
    for event, message in [(flip("Olivia", "QH"), "only one queen of hearts"),
                           (flip("Olivia", "JOKER"), "without jokers"),
                           (flip("Olivia", "ZZ"), "Unknown card"),
                           (flip("Alex", "KH"), "already been dealt"),
                           (bet("Olivia", 5), "Bets are closed"),
                           (flip("Bob", "2C"), "no player called 'Bob'")]:
        with pytest.raises(IllegalEvent, match=message):
            two.submit(event)
        assert two.state.snapshot() == before


def test_verify_can_apply_trio(alex):
    state = alex.state
    before = state.snapshot()
    bad = parse_event(bet("Alex", 500))
    assert not state.can(bad)
    with pytest.raises(IllegalEvent):
        state.apply(bad)
    assert state.snapshot() == before
    good = parse_event(bet("Alex", 5))
    assert state.can(good) and state.snapshot() == before
    state.apply(good)
    assert state.counts() == {"Alex": 95} and state.phase == "deal"


def test_go_to_war_needs_the_chips_for_the_second_bet():
    t = Table("casino", ["Alex"], {"bankroll": 15})
    play(t, bet("Alex", 10), flip("Alex", "6H"), flip("Dealer", "6S"))
    with pytest.raises(IllegalEvent, match="can only surrender"):
        t.submit({"type": "go_to_war", "seat": "Alex"})
    play(t, {"type": "surrender", "seat": "Alex"})
    assert chips(t) == {"Alex": 10}


def test_a_shoe_of_several_decks_holds_each_card_that_many_times():
    t = Table("casino", ["Alex"], {"decks": 2})
    play(t, bet("Alex", 10), flip("Alex", "QH"), flip("Dealer", "QH"))
    war(t)
    with pytest.raises(IllegalEvent, match="only 2 queen of hearts cards in the shoe"):
        t.submit(flip("Alex", "QH"))
    play(t, flip("Alex", "AH"), flip("Dealer", "KH"))
    play(t, bet("Alex", 10), flip("Alex", "QH"))        # reshuffled between rounds


# ------------------------------------------------------------------ the end of the game
def test_broke_players_are_out_and_when_everyone_is_the_house_wins():
    t = Table("casino", ["Alex", "Olivia"], {"bankroll": 10, "min_bet": 2})
    r = play(t, bet("Alex", 9), bet("Olivia", 10), flip("Alex", "3D"), flip("Olivia", "4D"),
             flip("Dealer", "QD"))
    assert [x.type for x in r][-3:] == ["out", "out", "game_over"]
    assert t.state.over and t.state.result["reason"] == "broke" and t.state.result["winner"] is None
    assert t.state.house == 19
    conserved(t)


def test_round_cap_scores_most_chips_and_a_war_belongs_to_its_round(two):
    t = Table("casino", ["Alex", "Olivia"], {"max_battles": 1})
    play(t, bet("Alex", 10), bet("Olivia", 10), flip("Alex", "8C"), flip("Olivia", "2C"), flip("Dealer", "8D"))
    assert not t.state.over
    war(t)
    r = play(t, flip("Alex", "3C"), flip("Dealer", "4C"))
    assert r[-1].type == "game_over" and r[-1].data["winner"] == "Olivia"   # 80 against 90
    conserved(t)


def test_time_up_between_rounds_scores_at_once_and_mid_round_finishes_the_round(two):
    play(two, bet("Alex", 10))
    r = play(two, {"type": "time_up"})
    assert not two.state.over and "Finish this round" in r[0].text
    r = play(two, bet("Olivia", 10), flip("Alex", "3C"), flip("Olivia", "4C"), flip("Dealer", "2C"))
    assert r[-1].type == "game_over" and r[-1].data["winners"] == ["Alex", "Olivia"]
    fresh = Table("casino", ["Alex", "Olivia"])
    r = play(fresh, {"type": "time_up"})
    assert fresh.state.over and r[-1].data["reason"] == "time_up"


def test_single_player_wins_only_by_beating_the_house():
    t = Table("casino", ["Alex"], {"max_battles": 1})
    r = play(t, bet("Alex", 10), flip("Alex", "5C"), flip("Dealer", "4C"))
    assert r[-1].data["winner"] == "Alex"
    t = Table("casino", ["Alex"], {"max_battles": 1})
    r = play(t, bet("Alex", 10), flip("Alex", "3C"), flip("Dealer", "4C"))
    assert r[-1].data["winner"] is None and "house wins" in r[-1].text


def test_recount_is_a_logged_correction(alex):
    r = play(alex, {"type": "recount", "seat": "Alex", "count": 90})
    assert r[0].data == {"seat": "Alex", "count": 90, "was": 100, "counts": {"Alex": 90}, "house": 0, "seq": 0}
    assert alex.state.adjustment == -10
    conserved(alex)


def test_undo_and_restore_replay_the_log(two):
    play(two, bet("Alex", 10), bet("Olivia", 10), flip("Alex", "8C"), flip("Olivia", "2C"),
         flip("Dealer", "8D"))
    before_war = two.state.snapshot()
    play(two, {"type": "go_to_war", "seat": "Alex"})
    assert two.submit({"type": "undo"})[0].type == "undo"
    assert two.state.snapshot() == before_war
    again = Table.restore("casino", ["Alex", "Olivia"], two.options, two.log)
    assert again.state.snapshot() == two.state.snapshot()


# ------------------------------------------------------------------ set-up and options
def test_options_are_typed_and_checked_together():
    game = get_game("casino")
    opts = game.resolve_options({})
    assert opts == {"bankroll": 100, "min_bet": 1, "max_bet": None, "tie_bet": True,
                    "odd_surrender": "house_keeps", "decks": 1, "timed_tie": "shared", "max_battles": None}
    for bad in ({"max_bet": 5, "min_bet": 10}, {"min_bet": 200}, {"decks": 9}, {"bankroll": 0},
                {"odd_surrender": "coin_flip"}, {"min_bet": 3, "odd_surrender": "even_bets"}):
        with pytest.raises(OptionError):
            game.resolve_options(bad)
    assert all(line.count(":") >= 1 and line.endswith(".") for line in game.rule_sheet(opts))


def test_tie_bet_option_off_refuses_a_tie_bet():
    t = Table("casino", ["Alex"], {"tie_bet": "off"})
    with pytest.raises(IllegalEvent, match="without the tie bet"):
        t.submit(bet("Alex", 10, tie=1))


def test_dealer_is_implicit_and_no_player_may_take_its_name():
    with pytest.raises(SetupError, match="house's seat"):
        Table("casino", ["Alex", "dealer"])
    with pytest.raises(SetupError):
        Table("casino", [f"P{i}" for i in range(8)])
    assert Table("casino", ["Alex"]).players == ["Alex"]


def test_exact_house_edge_matches_the_published_figures():
    assert round(100 * float(exact_house_edge(6, "war")), 2) == 2.88
    assert round(100 * float(exact_house_edge(6, "surrender")), 2) == 3.70
