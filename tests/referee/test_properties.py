"""Property tests (hypothesis).

1. Random legal games, played on real cards by the simulator, never crash, never disagree with the
   real cards, keep the card total at 71 minus the action cards used, and always end.
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
from referee.sim.woolly import WoollySim

NAMES = ["Alex", "Olivia", "Sam"]
CARDS = ["1", "5", "8", "8G", "12B", "12", "WAR", "war", "STEAL", "REVEAL", "13", "", "7X", "Q"]


@examples(60)
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


def action(data, seat, players):
    return {"type": "action", "seat": seat, "card": data.draw(st.sampled_from(["STEAL", "REVEAL", "8"])),
            "target": data.draw(st.sampled_from(players + [None])),
            "from": data.draw(st.sampled_from(["hand", "herd", "pocket", None]))}


def random_event(data, players):
    return properties.random_event(data, players, CARDS, [-1, 0, 1, 2, 3, "2"], 40, own={"action": action},
                                   foreign={"type": "choose", "opponent": players[0]})


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
    return one_legal(data, table, candidates)


@examples(150)
@given(data=st.data(), players=st.sampled_from([2, 3]), steps=st.integers(1, 250))
def test_random_event_streams_never_crash_and_refusals_change_nothing(data, players, steps):
    table = Table("woolly", NAMES[:players], {"max_battles": data.draw(st.none() | st.integers(1, 30))})
    actions = 0
    for rulings, added in event_stream(data, table, steps, legal_event, random_event):
        actions += sum(r.type == "action" for r in rulings)
        # the referee's own card total against one kept here from its rulings alone
        assert table.state.card_total() == 71 - actions + added


@examples(60)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3]), back=st.integers(1, 40))
def test_undo_gives_back_the_earlier_state(seed, players, back):
    sim = WoollySim(NAMES[:players], random.Random(seed), {"max_battles": 15})
    sim.run()
    check_undo(sim.table, back)
