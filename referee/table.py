"""A table: one game being refereed. The append-only event log is the source of truth; the state is
what replaying it gives. Undo appends an ``undo`` entry and replays; restore replays a saved log."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import IllegalEvent
from .events import Event, Undo, parse_event
from .game import Game, State
from .games import get_game
from .rulings import Ruling
from .say import say


class RefereeBug(Exception):
    """The rules code failed on an event it had accepted. The state was rebuilt from the log."""


def describe_event(event: Event, seats: Mapping[str, str] | None = None) -> str:
    """An event as the undo names it ("Alex's flip (card 9S)"): its type and fields as typed, the seat's
    possessive said with say() (Portuguese: "flip de Alex (card 9S)"); ``seats`` (lower-cased name ->
    name as set up) names a seat typed in another case as the table does ("alex" -> "Alex")."""
    data = event.to_json()
    kind = data.pop("type")
    seat = data.pop("seat", None)
    if seat and seats:
        seat = seats.get(str(seat).strip().lower(), seat)
    rest = ", ".join(f"{k} {v}" for k, v in data.items())
    if seat:
        return (say("{seat}'s {kind} ({fields})", seat=seat, kind=kind, fields=rest) if rest else
                say("{seat}'s {kind}", seat=seat, kind=kind))
    return say("{kind} ({fields})", kind=kind, fields=rest) if rest else kind


# Where a replay of the events in force may start: given them, (the state after the first n, n), or
# None to start from a fresh state (Table's ``replay_from``).
ReplayFrom = Callable[[Sequence[Event]], "tuple[State, int] | None"]


class Table:
    """``replay_from``: where an undo (or the state rebuilt after a fault in the rules code) starts
    replaying the events in force. Without it, from a fresh state; the dashboard's server gives the
    snapshots it keeps of a long game (web/session.py), which must be exactly the states those first
    n events leave, so the outcome is the same, only faster."""

    def __init__(self, game: Game | str, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 *, replay_from: ReplayFrom | None = None):
        if isinstance(game, str):
            game = get_game(game)
        self.game = game
        self.players = game.check_players(players)
        self.options = game.resolve_options(options)
        self._log: list[dict[str, Any]] = []    # the log's entries made so far (``log``)
        self._unlogged: list[Event] = []        # events accepted since, whose entries are made when read
        self.effective: list[Event] = []        # what replaying the log leaves in force
        self.replay_from = replay_from
        self.state: State = self._fresh()

    @property
    def log(self) -> list[dict[str, Any]]:
        """Every accepted entry, undo entries included, as JSON objects. Each entry is made when the
        log is read (a simulation plays thousands of events a second and hardly reads it)."""
        if self._unlogged:
            for event in self._unlogged:
                self._log.append(event.to_json())
            self._unlogged.clear()
        return self._log

    @log.setter
    def log(self, entries: list[dict[str, Any]]) -> None:
        self._log = entries
        self._unlogged = []

    def _fresh(self) -> State:
        return self.game._new_state(list(self.players), dict(self.options))

    def _rebuild(self) -> State:
        found = self.replay_from(self.effective) if self.replay_from is not None else None
        state, start = found if found is not None else (self._fresh(), 0)
        for event in self.effective[start:]:
            state.apply(event)
        return state

    def _seats(self) -> Mapping[str, str] | None:
        """Lower-cased name -> name as set up: a seated state's own map (SeatedState._lower), for naming
        a seat an event typed in another case."""
        return getattr(self.state, "_lower", None)

    # -- checking without applying -------------------------------------------------------------
    def verify(self, obj: Mapping[str, Any] | Event) -> Event:
        event = obj if isinstance(obj, Event) else parse_event(obj)
        if isinstance(event, Undo):
            if not self.effective:
                raise IllegalEvent(say("There is nothing to undo."))
        else:
            self.state.verify(event)
        return event

    def can(self, obj: Mapping[str, Any] | Event) -> bool:
        try:
            self.verify(obj)
        except IllegalEvent:
            return False
        return True

    # -- applying ------------------------------------------------------------------------------
    def submit(self, obj: Mapping[str, Any] | Event) -> list[Ruling]:
        """Apply one event; raises IllegalEvent (state untouched) if it is refused."""
        event = obj if isinstance(obj, Event) else parse_event(obj)
        seq = len(self._log) + len(self._unlogged)
        if isinstance(event, Undo):
            if not self.effective:
                raise IllegalEvent(say("There is nothing to undo."))
            undone = self.effective.pop()
            self.state = self._rebuild()
            rulings = [Ruling("undo", say("Undone: {event}.", event=describe_event(undone, self._seats())),
                              {"undone": undone.to_json(), "counts": self.state.counts()}),
                       self.state.prompt()]
        else:
            state = self.state
            state.verify(event)
            try:
                rulings = state._apply(event)
            except Exception as err:  # a bug in the rules code: never leave a half-applied state
                self.state = self._rebuild()
                raise RefereeBug(f"The referee failed on {describe_event(event, self._seats())}: {err!r}") from err
            self.effective.append(event)
        self._unlogged.append(event)
        for r in rulings:
            r.data.setdefault("seq", seq)
        return rulings

    def handle(self, obj: Any) -> list[Ruling]:
        """Like submit, but a refused event becomes an ``error`` ruling instead of an exception."""
        try:
            return self.submit(obj)
        except IllegalEvent as err:
            return [Ruling("error", err.message, {"message": err.message})]
        except RefereeBug as err:
            return [Ruling("error", str(err), {"message": str(err), "bug": True})]

    # -- restore -------------------------------------------------------------------------------
    @classmethod
    def restore(cls, game: Game | str, players: Sequence[str], options: Mapping[str, Any] | None,
                log: Iterable[Mapping[str, Any]]) -> "Table":
        """Rebuild a table from a saved log (each entry as written to ``log``)."""
        table = cls(game, players, options)
        for entry in log:
            table.submit(entry)
        return table
