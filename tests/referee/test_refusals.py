"""Refusals on the referee's fast path change nothing, in every game: a simulated game on real cards,
with bad events slipped in before its real ones. Each must be refused with a sentence and leave the
state, the log and the events in force exactly as they were; the simulator then goes on checking
every ruling of the real game against its real cards, so a refusal that left a trace would show."""
import random

import pytest

from referee.errors import IllegalEvent
from referee.events import Choose, Down, Flip, SeatEvent, parse_event
from referee.sim.casino import CasinoSim
from referee.sim.classic import ClassicSim
from referee.sim.guerra import GuerraSim
from referee.sim.namikopy import NamikopySim
from referee.sim.woolly import WoollySim

GAMES = [(ClassicSim, ["Alex", "Olivia", "Sam"]), (WoollySim, ["Alex", "Olivia"]),
         (NamikopySim, ["Alex", "Olivia", "Sam"]), (CasinoSim, ["Alex", "Olivia"]),
         (GuerraSim, ["Alex", "Olivia"])]


def bad_versions(event, rng: random.Random) -> list:
    """Events that can never be accepted, made from a real one: a stranger's seat, a card no deck
    has, more face-down cards than any game deals, a kind of event for another game (or none at
    all), something that is not an event."""
    seat = event.seat if isinstance(event, SeatEvent) else "Alex"
    bad = [{"type": "flip", "seat": "Nobody", "card": "AS"},
           {"type": "flip", "seat": seat, "card": "ZZ"},
           Flip(seat, "not a card"),
           Down(seat, 999),
           {"type": "down", "seat": seat, "count": "three"},
           {"type": "shuffle", "seat": seat},
           {"type": "flip", "seat": seat},
           ["flip"]]
    if isinstance(event, SeatEvent):
        fields = event.to_json()
        bad.append({**fields, "seat": "Nobody"})
    if not isinstance(event, Choose):
        bad.append(Choose(seat, "Nobody"))
    return rng.sample(bad, 3)


@pytest.mark.parametrize("sim_class, players", GAMES, ids=[g.__name__ for g, _ in GAMES])
@pytest.mark.parametrize("seed", [1, 2])
def test_bad_events_between_real_ones_change_nothing(sim_class, players, seed):
    rng = random.Random(seed)
    sim = sim_class(players, random.Random(seed))
    table = sim.table
    real_submit = table.submit
    refused = 0

    def submit(event):
        nonlocal refused
        for bad in bad_versions(event if not isinstance(event, dict) else parse_event(event), rng):
            before = (table.state.snapshot(), list(table.log), list(table.effective))
            with pytest.raises(IllegalEvent) as err:
                real_submit(bad)
            assert err.value.message.strip(), bad
            assert (table.state.snapshot(), table.log, table.effective) == before, bad
            refused += 1
        return real_submit(event)

    table.submit = submit
    record = sim.run()
    assert record.events > 20 and refused == 3 * record.events
    assert record.finished
