"""Guerra property tests (hypothesis).

1. Random legal matches (random players on real shuffled cards, 2 players, 2x2 and 3x3, random
   options and habits) never crash, never disagree with the table's own scoring (the simulator
   raises Mismatch), move the score only at the end of a confronto and only by what the rules give,
   and end with one side at 6 or more.
2. At random moments of those matches, illegal events - playing out of turn, raising twice in a row,
   raising past 6, an Ofensiva in Fim de Guerra or Guerra Fria - are refused with a sentence and
   change nothing.
3. Random event streams, mostly illegal, never crash; refused events change nothing; undo is a replay.
"""
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import IllegalEvent, Table
from referee.sim.guerra import GuerraSim

NAMES = ["Alex", "Olivia", "Sam", "Mia", "Kim", "Lee"]
OPTIONS = st.fixed_dictionaries({"cut": st.sampled_from(["optional", "required"]),
                                 "deck": st.sampled_from(["auto", "basic", "advanced"])})
PROFILE = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def refused_cleanly(table: Table, event: dict, submit=None) -> None:
    before = (table.state.snapshot(), list(table.log))
    try:
        (submit or table.submit)(event)
    except IllegalEvent as err:
        assert err.message and err.message.strip().endswith((".", "!", ")"))
    else:
        raise AssertionError(f"{event} was accepted in {before[0]}")
    assert (table.state.snapshot(), list(table.log)) == before


def illegal_now(state, rng: random.Random) -> list[dict]:
    """Events that the rules forbid in this state, by construction."""
    out = []
    nxt = state.to_play() if state.phase in ("deal", "play") else None
    if nxt:
        other = rng.choice([s for s in state.seats if s != nxt])
        out.append({"type": "flip", "seat": other, "card": "BACK"})           # out of turn
    sides = {0: [s for s in state.seats if state.side_of(s) == 0], 1: [s for s in state.seats if state.side_of(s) == 1]}
    if state.mode in ("fim", "fria"):
        out.append({"type": "raise", "seat": rng.choice(state.seats)})         # no Ofensivas in the endgame
    elif state.pending:
        out.append({"type": "raise", "seat": rng.choice(sides[state.pending["side"]])})   # twice in a row
        if state.pending["value"] >= 6:
            out.append({"type": "raise", "seat": rng.choice(sides[1 - state.pending["side"]])})
    else:
        if state.last_raise is not None:
            out.append({"type": "raise", "seat": rng.choice(sides[state.last_raise])})    # twice in a row
        if state.value >= 6:
            out.append({"type": "raise", "seat": rng.choice(state.seats)})               # past 6
    return out


@PROFILE
@given(seed=st.integers(0, 2**32), teams=st.sampled_from([2, 4, 6]), options=OPTIONS,
       raise_rate=st.floats(0, 0.5), cover=st.floats(0, 0.6), abstain=st.floats(0, 0.6),
       fim=st.floats(0, 1), probe=st.floats(0, 0.5))
def test_random_matches_follow_the_rules_and_end(seed, teams, options, raise_rate, cover, abstain, fim, probe):
    rng = random.Random(seed)
    sim = GuerraSim(NAMES[:teams], rng, options, raise_rate=raise_rate, cover_rate=cover,
                    abstain_rate=abstain, fim_accept=fim)
    table = sim.table
    real_submit = table.submit
    probes = random.Random(seed + 1)
    seen = []

    def submit(event):
        state = table.state
        if not state.over and probes.random() < probe:
            for bad in illegal_now(state, probes):
                refused_cleanly(table, bad, real_submit)
        before = list(table.state.scores)
        rulings = real_submit(event)
        after = table.state.scores
        moved = [after[i] - before[i] for i in (0, 1)]
        if moved != [0, 0]:
            kinds = {r.type for r in rulings}
            assert kinds & {"confronto", "refuse"} and "score" in kinds
            assert all(m >= 0 for m in moved) and 1 <= sum(moved) <= 6 and min(moved) == 0
        seen.append(event)
        return rulings

    table.submit = submit
    record = sim.run()
    assert record.finished and table.state.over
    assert max(table.state.scores) >= 6
    assert table.state.result["reason"] == "six_points"


EVENTS = st.one_of(
    st.builds(lambda s, c: {"type": "flip", "seat": s, "card": c}, st.sampled_from(NAMES[:4] + ["Bob"]),
              st.sampled_from(["AS", "7C", "7C", "10D", "BACK", "JC", "KS", "9", "1H", "", "QX"])),
    st.builds(lambda k, s: {"type": k, "seat": s}, st.sampled_from(["raise", "accept", "refuse", "abstain"]),
              st.sampled_from(NAMES[:4])),
    st.builds(lambda s, c, p: {"type": "call", "seat": s, "cards": c, "parity": p}, st.sampled_from(NAMES[:4]),
              st.sampled_from(["7C 8D 9H", "AS 2S 3S", "9C 10C AC", "7C 8D"]), st.sampled_from(["even", "odd", "x"])),
    st.builds(lambda s, d: {"type": "roll", "seat": s, "die": d}, st.sampled_from(NAMES[:4]), st.integers(0, 7)),
    st.builds(lambda s, c: {"type": "cut", "seat": s, "choice": c}, st.sampled_from(NAMES[:4]),
              st.sampled_from(["up", "down", "left"])),
    st.just({"type": "undo"}), st.just({"type": "time_up"}), st.just({"type": "flips", "cards": {"Alex": "2C"}}),
)


@PROFILE
@given(players=st.sampled_from([2, 4]), events=st.lists(EVENTS, max_size=80), cut=st.sampled_from(["optional", "required"]))
def test_event_streams_never_crash_and_undo_replays(players, events, cut):
    table = Table("guerra", NAMES[:players], {"cut": cut})
    for event in events:
        before = (table.state.snapshot(), list(table.log))
        rulings = table.handle(event)
        if rulings and rulings[0].type == "error":
            assert not rulings[0].data.get("bug"), rulings[0].text
            assert (table.state.snapshot(), list(table.log)) == before
        replay = Table.restore("guerra", NAMES[:players], {"cut": cut}, table.log)
        assert replay.state.snapshot() == table.state.snapshot()
    if table.effective:
        snap = table.state.snapshot()
        last = table.effective[-1]
        table.submit({"type": "undo"})
        fresh = Table("guerra", NAMES[:players], {"cut": cut})
        for e in table.effective:
            fresh.submit(e)
        assert fresh.state.snapshot() == table.state.snapshot()
        table.submit(last)
        assert table.state.snapshot() == snap
