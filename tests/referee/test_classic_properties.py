"""Classic War property tests (hypothesis).

1. Random games on real shuffled cards, under random rule options, never disagree with the real
   cards (the simulator raises Mismatch), never create or lose a card, and always end (or, with
   won cards returned in a fixed order, are caught repeating a whole position).
2. Random event streams, mostly illegal, never crash the referee; a refused event leaves state and
   log untouched; accepted events keep the card total.
3. Undo is a replay.
"""
import random

from hypothesis import given
from hypothesis import strategies as st

import properties
from properties import check_undo, event_stream, examples, one_legal
from referee import Table
from referee.sim.classic import ClassicSim

NAMES = ["Alex", "Olivia", "Sam", "Mia"]
CARDS = ["AS", "AH", "2C", "7D", "7S", "QH", "KC", "JOKER", "10D", "10S", "9", "Q", "13", "", "1S", "8X"]
OPTIONS = st.fixed_dictionaries({
    "war_down": st.sampled_from(["1", "3", "rank"]),
    "short": st.sampled_from(["last_card_stands", "lose", "last_card_once"]),
    "fewest_cards_fix": st.booleans(),
    "jokers": st.booleans(),
    "war": st.sampled_from(["bury", "bury", "race"]),
    "timed_tie": st.sampled_from(["shared", "sudden_death"]),
    "max_battles": st.none() | st.integers(1, 150),
})


@examples(60)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), options=OPTIONS,
       returns=st.sampled_from(["shuffle", "fixed"]), time_up_at=st.none() | st.integers(1, 200),
       batch=st.floats(0, 1))
def test_random_games_follow_the_real_cards_and_end(seed, players, options, returns, time_up_at, batch):
    if options["max_battles"] is None and time_up_at is None:
        options = {**options, "max_battles": 3000}       # keep each example short
    sim = ClassicSim(NAMES[:players], random.Random(seed), options, returns=returns, time_up_at=time_up_at,
                     batch_rate=batch)
    record = sim.run()
    state = sim.table.state
    assert state.card_total() == (54 if options["jokers"] else 52)
    assert sum(sim.total(n) for n in NAMES[:players]) + state.aside + len(state.middle) + state.carried \
        == state.card_total()
    if record.finished:
        assert state.over
        assert record.reason in ("last_standing", "draw", "time_up", "max_battles")
    else:
        assert record.reason == "loop" and returns == "fixed"


def flips(data, seat, players):
    seats = data.draw(st.lists(st.sampled_from(players + ["Bob"]), min_size=0, max_size=4))
    return {"type": "flips", "cards": {s: data.draw(st.sampled_from(CARDS)) for s in seats}}


def random_event(data, players):
    return properties.random_event(data, players, CARDS, [-1, 0, 1, 2, 3, 4, 11, "2"], 30, own={"flips": flips})


def legal_event(data, table):
    state = table.state
    seats = state.racers if state.phase == "race" else state.fighters
    candidates = []
    for seat in seats:
        candidates += [{"type": "flip", "seat": seat, "card": c}
                       for c in ("2C", "5D", "9H", "9S", "QS", "AS", "AD", "JOKER")]
        candidates += [{"type": "down", "seat": seat, "count": n} for n in (1, 2, 3, 4, 10)]
    if len(seats) > 1:
        candidates.append({"type": "flips", "cards": {seats[0]: "AH", seats[1]: "AC"}})
        candidates.append({"type": "flips", "cards": {s: c for s, c in zip(seats, ("KH", "KD", "3C", "4C"))}})
    return one_legal(data, table, candidates)


@examples(120)
@given(data=st.data(), players=st.integers(2, 4), options=OPTIONS, steps=st.integers(1, 200))
def test_random_event_streams_never_crash_and_refusals_change_nothing(data, players, options, steps):
    table = Table("classic", NAMES[:players], options)
    total = 54 if options["jokers"] else 52
    for _, added in event_stream(data, table, steps, legal_event, random_event, (".", "!", ")")):
        assert table.state.card_total() == total + added
        assert all(p.stack >= 0 and p.won >= 0 for p in table.state.players.values())


@examples(60)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), options=OPTIONS, back=st.integers(1, 40))
def test_undo_gives_back_the_earlier_state(seed, players, options, back):
    sim = ClassicSim(NAMES[:players], random.Random(seed), {**options, "max_battles": 20})
    sim.run()
    check_undo(sim.table, back)


@examples(200)
@given(options=OPTIONS, stacks=st.lists(st.integers(1, 12), min_size=2, max_size=4), tied=st.integers(2, 4),
       rank=st.sampled_from(["2", "5", "9", "J", "K", "A"]))
def test_a_war_never_asks_more_than_the_shortest_stack_in_it_can_cover(options, stacks, tied, rank):
    """Issue 62: when the stake must fit the shortest stack (rank sets the stake, or three down with
    the fewest-cards fix), it fits every stack that stays in the war, a last card standing (no card
    left) included; and no player is ever asked to lay more cards than they hold."""
    names = NAMES[:len(stacks)]
    tied = min(tied, len(names))
    table = Table("classic", names, {**options, "war": "bury"})
    for name, count in zip(names, stacks):
        table.submit({"type": "recount", "seat": name, "count": count})
    low = {"2": "A", "A": "K"}.get(rank, "2")
    suits = "SHDC"
    rulings = []
    for i, name in enumerate(names):
        card = (rank if i < tied else low) + suits[i]
        if rank == "A" and i >= tied:
            card = "K" + suits[i]
        rulings += [r.to_json() for r in table.submit({"type": "flip", "seat": name, "card": card})]
    wars = [r for r in rulings if r["type"] == "war"]
    if not wars:
        return
    stake, left = wars[0]["stake"], {n: stacks[i] - 1 for i, n in enumerate(names)}
    out_when_empty = options["short"] in ("lose", "last_card_once")
    staying = [c for c in left.values() if c > 0 or not out_when_empty]
    covering = options["war_down"] == "rank" or (options["war_down"] == "3" and options["fewest_cards_fix"])
    if covering and staying:
        assert stake <= max(0, min(staying) - 1), (left, stake, options)
    state = table.state
    for seat, owed in getattr(state, "owed", {}).items():
        assert owed <= max(0, left[seat] - 1), (seat, owed, left)
