"""Namikopy War property tests (hypothesis).

1. Random legal games, played on real cards by the simulator, never crash, never disagree with the
   real cards (the simulator raises Mismatch), never create or lose a card, and always end (or hit
   the simulator's event cap, which only an endless game could reach).
2. Random event streams (mostly illegal, some legal) never crash the referee; every refused event
   leaves the state and the log exactly as they were; no accepted event creates or loses a card.
3. Undo is a replay: after any prefix, undoing gives back the earlier state.
"""
import random

from hypothesis import given
from hypothesis import strategies as st

import properties
from properties import check_undo, event_stream, examples, one_legal
from referee import Table
from referee.sim.namikopy import NamikopySim

NAMES = ["Alex", "Olivia", "Sam", "Mia", "Jo"]
CARDS = ["1", "5", "8", "8", "12", "12", "MALLARD", "turkey", "Flamingo", "13", "0", "", "AS", "JOKER",
         "K", "10D", "STEAL"]


@st.composite
def options(draw):
    deck = draw(st.sampled_from(["namikopy", "standard"]))
    war = draw(st.booleans())
    have = (48 if deck == "namikopy" else 52) + ((3 if deck == "namikopy" else 2) if war else 0)
    return {"deck": deck, "war_cards": "on" if war else "off",
            "cards": draw(st.none() | st.integers(5, have)),
            "timed_tie": draw(st.sampled_from(["shared", "sudden_death"])),
            "max_battles": draw(st.none() | st.integers(1, 60))}


@examples(60)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5), opts=options(), split=st.floats(0, 1),
       time_up_at=st.none() | st.integers(1, 80))
def test_random_legal_games_follow_the_real_cards_and_end(seed, players, opts, split, time_up_at):
    if opts["cards"] is not None and opts["cards"] < players:
        opts["cards"] = players
    sim = NamikopySim(NAMES[:players], random.Random(seed), opts, split_downs=split, time_up_at=time_up_at,
                      max_events=20_000)
    record = sim.run()                      # raises Mismatch on any disagreement
    state = sim.table.state
    assert state.card_total() == state.expected_total() == sim.dealt
    if not record.finished:                 # only an endless game reaches the simulator's cap
        assert opts["max_battles"] is None and time_up_at is None
        return
    assert state.over
    assert record.reason in ("last_standing", "draw", "time_up", "max_battles")
    if opts["max_battles"] is not None and record.reason == "max_battles":
        assert state.battles >= opts["max_battles"]


def choose(data, seat, players):
    return {"type": "choose", "seat": seat, "opponent": data.draw(st.sampled_from(players + ["Bob"]))}


def random_event(data, players):
    return properties.random_event(data, players, CARDS, [-1, 0, 1, 2, 3, 4, "3"], 30, own={"choose": choose})


def legal_event(data, table):
    """An event the referee accepts now, picked among plausible candidates (None if none fits)."""
    state = table.state
    candidates = []
    for seat in state.fighters:
        candidates += [{"type": "flip", "seat": seat, "card": c}
                       for c in ("3", "3", "9", "9", "12", "MALLARD", "TURKEY", "AS", "AH", "JOKER")]
        candidates += [{"type": "down", "seat": seat, "count": n} for n in (1, 2, 3, 3)]
        candidates += [{"type": "choose", "seat": seat, "opponent": o} for o in state.fighters]
    return one_legal(data, table, candidates)


@examples(120)
@given(data=st.data(), players=st.integers(2, 5), steps=st.integers(1, 200))
def test_random_event_streams_never_crash_and_refusals_change_nothing(data, players, steps):
    opts = {"deck": data.draw(st.sampled_from(["namikopy", "standard"])),
            "war_cards": data.draw(st.sampled_from(["on", "off"])),
            "cards": data.draw(st.sampled_from([None, 10, 20])),
            "timed_tie": data.draw(st.sampled_from(["shared", "sudden_death"])),
            "max_battles": data.draw(st.none() | st.integers(1, 30))}
    table = Table("namikopy", NAMES[:players], opts)
    dealt = table.state.card_total()
    for _, added in event_stream(data, table, steps, legal_event, random_event):
        # the referee's own card total against one kept here from its rulings alone
        assert table.state.card_total() == dealt + added
        assert all(p.pile >= 0 and p.won >= 0 for p in table.state.players.values())


@examples(60)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5), war=st.booleans(), back=st.integers(1, 40))
def test_undo_gives_back_the_earlier_state(seed, players, war, back):
    sim = NamikopySim(NAMES[:players], random.Random(seed), {"max_battles": 12, "war_cards": war})
    sim.run()
    check_undo(sim.table, back)
