"""What the real-card simulators share: the game record, the mismatch error, the bookkeeping
around the referee's table (feed an event, find a ruling, close the record at the end) and the
course of a game of battles under a clock and a battle cap."""
from __future__ import annotations

import math
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from ..events import Event, TimeUp
from ..rulings import Ruling
from ..table import Table


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
    """A simulated table: the referee's ``table``, the ``record`` of the game, the ``last`` rulings,
    the seat ``names``, the seats ``out`` of the game and what time and the battle cap do to a game
    of battles (``run``). Each game's simulator holds the real cards, plays a ``battle(fighters)``,
    gives the tied players when it is time to ``score()``, counts a player's cards (``total(seat)``)
    and has ``check_counts(when)`` compare the referee's counts with the real cards."""

    time_up_at: int | None = None       # battle number at whose start time runs out

    def __init__(self, game: str, players: list[str], rng: random.Random, options: dict[str, Any] | None,
                 max_events: float = math.inf):
        self.rng = rng
        self.names = list(players)
        self.table = Table(game, players, options)
        self.options = self.table.options
        self.max_events = max_events
        self.out: set[str] = set()
        self.time_up = False
        self.sudden = False               # a sudden-death battle between tied players is on
        self.record = GameRecord(players=list(self.names))
        self.last: list[Ruling] = []

    def active(self) -> list[str]:
        active = []
        for s in self.names:                     # a loop, not a comprehension: quicker for a few seats
            if s not in self.out:
                active.append(s)
        return active

    def send(self, event: Event) -> list[Ruling]:
        rulings = self.table.submit(event)   # an illegal event here is a bug: let it raise
        self.record.events += 1
        if self.record.events > self.max_events:
            raise Stop
        self.last = rulings
        return rulings

    def expect(self, kind: str, **fields: Any) -> Ruling:
        for r in self.last:
            if r.type == kind and self._has(r.data, fields):
                return r
        raise Mismatch(f"expected a {kind} ruling {fields}, the referee said "
                       f"{[r.to_json() for r in self.last]}")

    @staticmethod
    def _has(data: dict[str, Any], fields: dict[str, Any]) -> bool:
        """Whether a ruling's ``data`` holds every one of ``fields``."""
        for k, v in fields.items():
            if not data.get(k) == v:
                return False
        return True

    def time_up_due(self) -> bool:
        """Time runs out in the coming battle (``time_up_at``) and the referee hasn't been told yet."""
        return self.time_up_at is not None and not self.time_up and self.record.battles + 1 >= self.time_up_at

    def say_time_up(self) -> None:
        """Time runs out: tell the referee."""
        self.time_up = True
        self.send(TimeUp())

    def run(self) -> GameRecord:
        """Battles until the game ends (``battle`` returns True). Time may run out between two
        battles, and the game is scored at once, or during one (``battle`` says it). Once time is up
        or the battle cap is reached the game is scored after each battle: ``score`` gives the tied
        players, who play a sudden-death battle, or None at the end."""
        try:
            fighters = self.active()
            while True:
                if self.time_up_due() and self.rng.random() < 0.5:     # between battles: scored at once
                    self.say_time_up()
                    if not self.sudden:
                        fighters = self.score()
                        if fighters is None:
                            break
                        self.sudden = True
                if self.battle(fighters):
                    break
                cap = self.options["max_battles"]
                if self.time_up or self.sudden or (cap is not None and self.record.battles >= cap):
                    fighters = self.score()
                    if fighters is None:
                        break
                    self.sudden = True
                else:
                    fighters = self.active()
        except Stop:
            self.record.finished = False
        return self.record

    def last_one_standing(self) -> bool:
        """After a battle the players left without cards are out; True when only one is left and the
        game is over."""
        for s in self.active():
            if self.total(s) == 0:
                self.out.add(s)
                self.expect("out", seat=s)
        active = self.active()
        if len(active) == 1:
            self.expect("game_over", winner=active[0], reason="last_standing")
            return self.finish()
        return False

    def score_by(self, points: dict[str, int], share: bool = False) -> list[str] | None:
        """The most ``points`` win: the referee must end the game so (a tie is shared under
        timed_tie=shared, or with ``share``) and None is returned, or call a tie: the tied players."""
        best = max(points.values())
        top = [s for s in points if points[s] == best]
        if len(top) == 1:
            self.expect("game_over", winner=top[0])
        elif self.options["timed_tie"] == "shared" or share:
            self.expect("game_over", winner=None, winners=top)
        else:
            self.expect("tie", tied=top)
            return top
        self.finish()
        return None

    def finish(self) -> bool:
        """The game is over: the real cards, the referee's result and the record agree."""
        self.check_counts("at the end")
        return self.close_record()

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
