"""The property-test harness every game's tests use (hypothesis).

- ``random_event``: a random event, mostly illegal, made of a game's cards and its own event kinds.
- ``one_legal``: one of some candidate events that the referee accepts now.
- ``event_stream``: a stream of such events, where every refusal must change nothing and the log
  must replay to the same state; the test checks its own totals after each accepted event.
- ``check_undo``: undoing the last events of a played game gives back the earlier state.
"""
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from conftest import handle_checked, next_event
from referee import Table

NOT_EVENTS = [None, 3, "flip", ["flip"]]
STEAL = {"type": "action", "card": "STEAL"}          # Woolly Warfare's, refused by the other games


def examples(n: int) -> settings:
    """Hypothesis settings for ``n`` examples of a slow test (no deadline)."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_event(data, players, cards, downs, recount_to, own=None, seats=(), foreign=STEAL):
    """A random event, mostly illegal: a flip of one of ``cards``, a down of one of ``downs``, a
    recount of -2 to ``recount_to``, time_up, an unknown type, ``foreign`` (an event of another
    game), something that is no event at all, or one of the game's ``own`` kinds (kind -> a function
    of data, seat and players that makes it). The seat is one of ``players``, a stranger, the first
    player's name in capitals or one of ``seats``."""
    own = own or {}
    kind = data.draw(st.sampled_from(["flip"] * 5 + ["down"] * 3 + list(own) * 2 +
                                     ["recount", "time_up", "unknown", "foreign", "no event"]))
    if kind == "no event":
        return data.draw(st.sampled_from(NOT_EVENTS))
    seat = data.draw(st.sampled_from(players + list(seats) + ["Bob", players[0].upper()]))
    if kind in own:
        return own[kind](data, seat, players)
    if kind == "flip":
        return {"type": "flip", "seat": seat, "card": data.draw(st.sampled_from(cards))}
    if kind == "down":
        return {"type": "down", "seat": seat, "count": data.draw(st.sampled_from(downs))}
    if kind == "recount":
        return {"type": "recount", "seat": seat, "count": data.draw(st.integers(-2, recount_to))}
    if kind == "unknown":
        return {"type": "shuffle", "seat": seat}
    if kind == "foreign":
        return {**foreign, "seat": seat}
    return {"type": "time_up"}


def one_legal(data, table, candidates):
    """One of ``candidates`` that the referee accepts now, or None if none is."""
    legal = [c for c in candidates if table.can(c)]
    return data.draw(st.sampled_from(legal)) if legal else None


def event_stream(data, table, steps, legal_event, random_event, endings=(".", "!")):
    """Hand ``table`` ``steps`` events, half of them legal when one is, each through handle_checked
    (a refusal is one sentence ending in one of ``endings`` and changes nothing). Yields, for each
    accepted event, its rulings (each with a type and a text) and how many cards (or chips) the
    recounts have added so far. Once the stream is used up, replaying the log gives the same state."""
    names = list(table.players)
    added = 0
    for _ in range(steps):
        rulings = handle_checked(table, next_event(data, table, names, legal_event, random_event), endings)
        if rulings is None:
            continue
        for r in rulings:
            assert r.text and r.type
            if r.type == "recount":
                added += r.data["count"] - r.data["was"]
        yield rulings, added
    again = Table.restore(table.game, table.players, table.options, table.log)
    assert again.state.snapshot() == table.state.snapshot()


def check_undo(table, back):
    """Undoing the last ``back`` events (at most all of them) of the game played at ``table`` gives
    back the state before them."""
    log = table.log
    back = min(back, len(log))
    again = Table.restore(table.game, table.players, table.options, log)
    earlier = Table.restore(table.game, table.players, table.options, log[:-back]).state.snapshot()
    for _ in range(back):
        assert again.submit({"type": "undo"})[0].type == "undo"
    assert again.state.snapshot() == earlier
