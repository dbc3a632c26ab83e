"""Casino War property tests (hypothesis).

1. Random legal games, played on a real shoe by the simulator, never crash, never disagree with
   the table's own settlement, never create or lose a chip (the house's balance is the exact
   negative of the players' total change), and always end or hit the cap.
2. Random event streams (mostly illegal, some legal) never crash the referee; every refused event
   leaves the state and the log exactly as they were; chips are conserved after every event.
3. Undo is a replay: after any prefix, undoing gives back the earlier state.
"""
import random

from hypothesis import example, given
from hypothesis import strategies as st

import properties
from properties import check_undo, event_stream, examples, one_legal
from referee import Table
from referee.sim.casino import CasinoSim

NAMES = ["Alex", "Olivia", "Sam", "Mia"]
CARDS = ["QH", "QH", "9C", "9", "AS", "A", "2D", "10H", "KC", "JOKER", "1H", "", "Q", "ZZ"]


@examples(60)
@example(seed=1727, players=3, bankroll=8, min_bet=1, max_bet=3, decks=1, odd="house_keeps", timed_tie="shared",
         tie_bet=False, cap=None, time_up_at=None, war_rate=0.75, tie_bet_rate=0.0)    # 3,561 rounds
@given(seed=st.integers(0, 2**32), players=st.integers(1, 4), bankroll=st.integers(2, 60),
       min_bet=st.integers(1, 3), max_bet=st.none() | st.integers(3, 40), decks=st.integers(1, 6),
       odd=st.sampled_from(["house_keeps", "player_keeps", "even_bets"]),
       timed_tie=st.sampled_from(["shared", "sudden_death"]), tie_bet=st.booleans(),
       cap=st.none() | st.integers(1, 60), time_up_at=st.none() | st.integers(1, 80),
       war_rate=st.floats(0, 1), tie_bet_rate=st.floats(0, 1))
def test_random_legal_games_follow_the_real_shoe_conserve_chips_and_end(
        seed, players, bankroll, min_bet, max_bet, decks, odd, timed_tie, tie_bet, cap, time_up_at,
        war_rate, tie_bet_rate):
    if odd == "even_bets":
        min_bet = 2
    options = {"bankroll": max(bankroll, min_bet), "min_bet": min_bet, "max_bet": max_bet,
               "decks": decks, "odd_surrender": odd, "timed_tie": timed_tie, "tie_bet": tie_bet,
               "max_battles": cap}
    # without a cap or a time limit a game ends only when every player is broke: a random walk
    # with a small house edge, which can be long (4 players, 60 chips, bets of 1-3: median about
    # 1,600 rounds, 5,018 the longest of 40 seeds; seed 1727 below needed 3,561). The simulator's
    # own limit sits far beyond that, so a game that does not end is a bug, not bad luck.
    sim = CasinoSim(NAMES[:players], random.Random(seed), options, war_rate=war_rate,
                    tie_bet_rate=tie_bet_rate, time_up_at=time_up_at, max_rounds=50_000)
    record = sim.run()                      # raises Mismatch on any disagreement
    state = sim.table.state
    assert record.finished and state.over
    assert state.on_table() == 0
    assert state.house == -(sum(state.counts().values()) - options["bankroll"] * players)
    assert record.reason in ("broke", "time_up", "max_battles")
    if cap is not None and record.reason == "max_battles":
        assert state.battles >= cap


def bet(data, seat, players):
    return {"type": "bet", "seat": seat, "amount": data.draw(st.sampled_from([-5, 0, 1, 5, 10, 60, 500, "9"])),
            "tie": data.draw(st.sampled_from([None, None, -1, 0, 1, 3, 200]))}


def choice(kind):
    return lambda data, seat, players: {"type": kind, "seat": seat}


def random_event(data, players):
    return properties.random_event(data, players, CARDS, [-1, 0, 1, 2, 3, 4, "3"], 150, seats=["Dealer"],
                                   own={"bet": bet, "surrender": choice("surrender"),
                                        "go_to_war": choice("go_to_war")})


def legal_event(data, table):
    """An event the referee accepts now, picked among plausible candidates (None if none fits)."""
    state = table.state
    candidates = [{"type": "down", "seat": "Dealer", "count": n} for n in (1, 3)]
    candidates += [{"type": "flip", "seat": "Dealer", "card": c} for c in ("9C", "5D", "QS", "AH")]
    for seat in state.seats:
        candidates += [{"type": "bet", "seat": seat, "amount": a} for a in (1, 5, 20)]
        candidates.append({"type": "bet", "seat": seat, "amount": 5, "tie": 2})
        candidates += [{"type": "flip", "seat": seat, "card": c} for c in ("9D", "5H", "QC", "AS", "2C")]
        candidates += [{"type": "surrender", "seat": seat}, {"type": "go_to_war", "seat": seat}]
    return one_legal(data, table, candidates)


@examples(120)
@given(data=st.data(), players=st.integers(1, 3), steps=st.integers(1, 200))
def test_random_event_streams_never_crash_and_refusals_change_nothing(data, players, steps):
    names = NAMES[:players]
    options = {"bankroll": data.draw(st.integers(5, 60)), "max_battles": data.draw(st.none() | st.integers(1, 20)),
               "decks": data.draw(st.integers(1, 2)),
               "timed_tie": data.draw(st.sampled_from(["shared", "sudden_death"]))}
    table = Table("casino", names, options)
    for _, corrections in event_stream(data, table, steps, legal_event, random_event, (".", "!", "?")):
        state = table.state
        # chips against a total kept here from the rulings alone: no chip created or lost
        assert state.chip_total() == options["bankroll"] * players + corrections
        assert all(c >= 0 for c in state.counts().values())
        if state.on_table() == 0:
            assert state.house == -(sum(state.counts().values()) - options["bankroll"] * players - corrections)


@examples(60)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 3), back=st.integers(1, 40))
def test_undo_gives_back_the_earlier_state(seed, players, back):
    sim = CasinoSim(NAMES[:players], random.Random(seed), {"max_battles": 8, "bankroll": 40})
    sim.run()
    check_undo(sim.table, back)
