"""Property tests (hypothesis).

1. Random legal games, played on real cards by the simulator, never crash, never disagree with the
   real cards, keep the card total at 71 minus the action cards used, and always end.
2. Random event streams (mostly illegal, some legal) never crash the referee; every refused event
   leaves the state and the log exactly as they were; no accepted event creates or loses a card.
3. Undo is a replay: after any prefix, undoing gives back the earlier state.
"""
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import handle_checked, next_event
from referee import Table
from referee.sim.woolly import WoollySim

NAMES = ["Alex", "Olivia", "Sam"]
CARDS = ["1", "5", "8", "8G", "12B", "12", "WAR", "war", "STEAL", "REVEAL", "13", "", "7X", "Q"]
PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROFILE
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3]),
       action_rate=st.floats(0, 1), split=st.floats(0, 1),
       timed_count=st.sampled_from(["hand_and_herd", "herd_only"]),
       timed_tie=st.sampled_from(["shared", "sudden_death"]),
       cap=st.none() | st.integers(1, 80), time_up_at=st.none() | st.integers(1, 120))
def test_random_legal_games_follow_the_real_cards_and_end(seed, players, action_rate, split, timed_count,
                                                          timed_tie, cap, time_up_at):
    options = {"timed_count": timed_count, "timed_tie": timed_tie, "max_battles": cap}
    sim = WoollySim(NAMES[:players], random.Random(seed), options, action_rate=action_rate,
                    split_downs=split, time_up_at=time_up_at)
    record = sim.run()                      # raises Mismatch on any disagreement
    state = sim.table.state
    assert record.finished and state.over
    assert state.card_total() == 71 - sum(state.used.values())
    assert record.reason in ("last_standing", "draw", "time_up", "max_battles")
    if cap is not None and record.reason != "last_standing" and time_up_at is None:
        assert state.battles >= cap


def random_event(data, players):
    kind = data.draw(st.sampled_from(["flip"] * 5 + ["down"] * 3 + ["action"] * 2 +
                                     ["recount", "time_up", "bogus", "not-a-dict"]))
    if kind == "not-a-dict":
        return data.draw(st.sampled_from([None, 3, "flip", ["flip"]]))
    seat = data.draw(st.sampled_from(players + ["Bob", players[0].upper()]))
    if kind == "flip":
        return {"type": "flip", "seat": seat, "card": data.draw(st.sampled_from(CARDS))}
    if kind == "down":
        return {"type": "down", "seat": seat, "count": data.draw(st.sampled_from([-1, 0, 1, 2, 3, "2"]))}
    if kind == "action":
        return {"type": "action", "seat": seat, "card": data.draw(st.sampled_from(["STEAL", "REVEAL", "8"])),
                "target": data.draw(st.sampled_from(players + [None])),
                "from": data.draw(st.sampled_from(["hand", "herd", "pocket", None]))}
    if kind == "recount":
        return {"type": "recount", "seat": seat, "count": data.draw(st.integers(-2, 40))}
    if kind == "bogus":
        return {"type": "shuffle", "seat": seat}
    return {"type": "time_up"}


def legal_event(data, table):
    """An event the referee accepts now, picked among plausible candidates (None if none fits)."""
    state = table.state
    candidates = []
    for seat in state.fighters:
        candidates += [{"type": "flip", "seat": seat, "card": c} for c in ("3", "3", "9", "12", "WAR")]
        candidates += [{"type": "down", "seat": seat, "count": n} for n in (1, 2)]
        candidates.append({"type": "action", "seat": seat, "card": "REVEAL"})
        candidates += [{"type": "action", "seat": seat, "card": "STEAL", "target": t, "from": f}
                       for t in state.fighters if t != seat for f in ("hand", "herd")]
    legal = [c for c in candidates if table.can(c)]
    return data.draw(st.sampled_from(legal)) if legal else None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), players=st.sampled_from([2, 3]), steps=st.integers(1, 250))
def test_random_event_streams_never_crash_and_refusals_change_nothing(data, players, steps):
    table = Table("woolly", NAMES[:players], {"max_battles": data.draw(st.none() | st.integers(1, 30))})
    actions = deltas = 0
    for _ in range(steps):
        rulings = handle_checked(table, next_event(data, table, NAMES[:players], legal_event, random_event))
        if rulings is None:
            continue
        for r in rulings:
            assert r.text and r.type
            actions += r.type == "action"
            if r.type == "recount":
                deltas += r.data["count"] - r.data["was"]
        # the referee's own card total against one kept here from its rulings alone
        assert table.state.card_total() == 71 - actions + deltas
    again = Table.restore("woolly", NAMES[:players], table.options, table.log)
    assert again.state.snapshot() == table.state.snapshot()


@PROFILE
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3]), back=st.integers(1, 40))
def test_undo_gives_back_the_earlier_state(seed, players, back):
    sim = WoollySim(NAMES[:players], random.Random(seed), {"max_battles": 15})
    sim.run()
    log = sim.table.log
    back = min(back, len(log))
    table = Table.restore("woolly", NAMES[:players], sim.table.options, log)
    earlier = Table.restore("woolly", NAMES[:players], sim.table.options, log[:-back]).state.snapshot()
    for _ in range(back):
        assert table.submit({"type": "undo"})[0].type == "undo"
    assert table.state.snapshot() == earlier
