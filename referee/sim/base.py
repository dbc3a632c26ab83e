"""What the real-card simulators share: the game record, the mismatch error and the bookkeeping
around the referee's table (feed an event, find a ruling, close the record at the end)."""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from ..rulings import Ruling


class Mismatch(AssertionError):
    """The referee and the real cards disagree."""


class Stop(Exception):
    """The simulator's safety cap on events was reached."""


@dataclass
class GameRecord:
    battles: int = 0          # middles taken
    wars: int = 0             # wars declared, each continuation counted
    rounds: int = 0           # flip rounds
    actions: int = 0          # Steal and Reveal cards played
    events: int = 0           # events fed to the referee
    winner: str | None = None
    winners: list[str] = field(default_factory=list)
    reason: str = ""
    finished: bool = True     # False when the simulator's safety cap stopped the game
    players: list[str] = field(default_factory=list)


class TableSim:
    """Bookkeeping for a simulator holding ``self.table`` (the referee's Table), ``self.record``,
    ``self.last`` (the latest rulings), ``self.names``, ``self.out`` and ``self.max_events``."""

    table: Any
    record: GameRecord
    last: list[Ruling]
    names: list[str]
    out: set[str]
    max_events: int

    def active(self) -> list[str]:
        return [s for s in self.names if s not in self.out]

    def send(self, event: dict[str, Any]) -> list[Ruling]:
        rulings = self.table.submit(event)   # an illegal event here is a bug: let it raise
        self.record.events += 1
        if self.record.events > self.max_events:
            raise Stop
        self.last = rulings
        return rulings

    def expect(self, kind: str, **fields: Any) -> Ruling:
        for r in self.last:
            if r.type == kind and all(r.data.get(k) == v for k, v in fields.items()):
                return r
        raise Mismatch(f"expected a {kind} ruling {fields}, the referee said "
                       f"{[r.to_json() for r in self.last]}")

    def close_record(self, battles: str = "battles") -> bool:
        """At the end: the referee's game is over too; its result goes into the record, and the
        battles (``battles``: what they are called) and wars it counted must match the table's."""
        state = self.table.state
        if not state.over:
            raise Mismatch(f"the table's game is over but the referee plays on: {state.snapshot()}")
        self.record.winner = state.result["winner"]
        self.record.winners = state.result["winners"]
        self.record.reason = state.result["reason"]
        if self.record.battles != state.battles or self.record.wars != state.wars:
            raise Mismatch(f"{battles}/wars {self.record.battles}/{self.record.wars} on the table, "
                           f"{state.battles}/{state.wars} for the referee")
        return True


def run_chunks(work: Callable[[Any], Any], tasks: list, jobs: int) -> Iterator[Any]:
    """``work`` of each task, in order: here with one job, else on ``jobs`` processes."""
    if jobs <= 1:
        for t in tasks:
            yield work(t)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(work, tasks)
