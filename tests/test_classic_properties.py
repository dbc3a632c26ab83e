"""Classic War property tests (hypothesis).

1. Random games on real shuffled cards, under random rule options, never disagree with the real
   cards (the simulator raises Mismatch), never create or lose a card, and always end (or, with
   won cards returned in a fixed order, are caught repeating a whole position).
2. Random event streams, mostly illegal, never crash the referee; a refused event leaves state and
   log untouched; accepted events keep the card total.
3. Undo is a replay.
"""
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import handle_checked, next_event
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
PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROFILE
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


def random_event(data, players):
    kind = data.draw(st.sampled_from(["flip"] * 5 + ["flips"] * 2 + ["down"] * 3 +
                                     ["recount", "time_up", "bogus", "not-a-dict"]))
    if kind == "not-a-dict":
        return data.draw(st.sampled_from([None, 3, "flip", ["flip"]]))
    seat = data.draw(st.sampled_from(players + ["Bob", players[0].upper()]))
    if kind == "flip":
        return {"type": "flip", "seat": seat, "card": data.draw(st.sampled_from(CARDS))}
    if kind == "flips":
        seats = data.draw(st.lists(st.sampled_from(players + ["Bob"]), min_size=0, max_size=4))
        return {"type": "flips", "cards": {s: data.draw(st.sampled_from(CARDS)) for s in seats}}
    if kind == "down":
        return {"type": "down", "seat": seat, "count": data.draw(st.sampled_from([-1, 0, 1, 2, 3, 4, 11, "2"]))}
    if kind == "recount":
        return {"type": "recount", "seat": seat, "count": data.draw(st.integers(-2, 30))}
    if kind == "bogus":
        return {"type": "action", "seat": seat, "card": "STEAL"}
    return {"type": "time_up"}


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
    legal = [c for c in candidates if table.can(c)]
    return data.draw(st.sampled_from(legal)) if legal else None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), players=st.integers(2, 4), options=OPTIONS, steps=st.integers(1, 200))
def test_random_event_streams_never_crash_and_refusals_change_nothing(data, players, options, steps):
    table = Table("classic", NAMES[:players], options)
    total = 54 if options["jokers"] else 52
    deltas = 0
    for _ in range(steps):
        rulings = handle_checked(table, next_event(data, table, NAMES[:players], legal_event, random_event), (".", "!", ")"))
        if rulings is None:
            continue
        for r in rulings:
            assert r.text and r.type
            if r.type == "recount":
                deltas += r.data["count"] - r.data["was"]
        assert table.state.card_total() == total + deltas
        assert all(p.stack >= 0 and p.won >= 0 for p in table.state.players.values())
    again = Table.restore("classic", NAMES[:players], table.options, table.log)
    assert again.state.snapshot() == table.state.snapshot()


@PROFILE
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), options=OPTIONS, back=st.integers(1, 40))
def test_undo_gives_back_the_earlier_state(seed, players, options, back):
    options = {**options, "max_battles": 20}
    sim = ClassicSim(NAMES[:players], random.Random(seed), options)
    sim.run()
    log = sim.table.log
    back = min(back, len(log))
    table = Table.restore("classic", NAMES[:players], sim.table.options, log)
    earlier = Table.restore("classic", NAMES[:players], sim.table.options, log[:-back]).state.snapshot()
    for _ in range(back):
        assert table.submit({"type": "undo"})[0].type == "undo"
    assert table.state.snapshot() == earlier
