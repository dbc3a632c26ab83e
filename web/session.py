"""One game as the dashboard's server holds it: ``Session``, the referee's Table for the game with
what the server keeps beside it (each log entry's rulings, the entries in force, the battles they
decided, a checkpoint of the state every ``CHECKPOINT_EVERY`` entries) and the views and history
pages drawn from them (docs/dashboard-api.md, "Long games: checkpoints")."""
from __future__ import annotations

import bisect
import contextlib
import gc
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from referee import Table, get_game
from referee.entry import now as entry_now_of, panel as entry_panel
from referee.errors import IllegalEvent
from referee.events import Event, parse_event
from referee.game import Game, State
from referee.say import message, message_field, say
from referee.table import RefereeBug

from .errors import Refused
from .checkpoints import CheckpointError, check_text, dump_state, load_state, referee_version
from .store import CheckpointRow, GameRecord

DECIDING = ("battle", "rodada")  # rulings that close one entry of the history (Guerra's tricks are rodadas)
VIEW_BATTLES = 20     # /api/state, the WebSocket hello and answers carry the newest battles ...
HISTORY_PAGE, HISTORY_PAGE_MAX = 50, 200   # ... and GET /api/games/{id}/history pages the rest
CHECKPOINT_EVERY = 500  # entries between two checkpoints of the referee's state (web/checkpoints.py)


# ----------------------------------------------------------------------------------- one game
class Session:
    """A game being refereed: the Table, the rulings each log entry gave, which entries are in force
    (undo entries take back the entry before them) and the battles they decided.

    The cost of an event does not grow with the game (issue 41): the battles are kept as the entries
    come (an undo takes back only the last one's), a view carries only the newest battles (the rest
    are paged, ``history_page``), and every ``checkpoint_every`` entries the state is saved as a
    checkpoint (web/checkpoints.py): a restart, a correction or an undo replays the log only from the
    latest checkpoint before the point it needs."""

    def __init__(self, record: GameRecord, checkpoint_every: int | None = None):
        self.record = record
        game = get_game(record.game)
        self.checkpoints = Checkpoints(game)                  # where an undo starts replaying the entries in force
        self.table = Table(game, [p["name"] for p in record.players], record.options,
                           replay_from=self.checkpoints.start)
        self.entry_rulings: list[list[dict[str, Any]]] = []   # per log index
        self.events: list[Any] = []                           # per log index: the parsed event (None: undo)
        self.in_force: list[int] = []                         # log indexes in force, in order (the table's
                                                              # ``effective``: the events of those entries)
        self.last: list[dict[str, Any]] = [said_json(self.table.state.prompt())]
        self.photos: set[int] = set()                         # log indexes with a stored battle photo
        self.battles: list[dict[str, Any]] = []               # the history, oldest first (no photo URLs)
        self._open = _OpenBattle()                            # the battle the entries since the last are playing
        self._hasher = hashlib.sha256()                       # digest of the log and rulings so far
        self.made: list[Checkpoint] = []                      # the checkpoints of this log, oldest first
        self.checkpoint_every = checkpoint_every or CHECKPOINT_EVERY
        self.replayed = 0          # entries the rules replayed to build this session (a restart: the tail)
        self.stale_rulings: list[tuple[int, list[dict[str, Any]]]] = []   # rulings the store lacks (load)
        self.stale_checkpoints: list[int] = []                # stored checkpoints that cannot be used (load)
        # the dashboard's entry panel for this game (referee/entry.py): drawn from it, the same all game
        self.entry = entry_panel(self.table.game, self.table.options, self.table.players, self.table.state)

    # -- building ----------------------------------------------------------------------------------
    @classmethod
    def replay(cls, record: GameRecord, log: list[Mapping[str, Any]]) -> "Session":
        """The whole log replayed. Raises Refused(409) naming the first entry that no longer plays."""
        session = cls(record)
        session._play(log, 0)
        return session

    def _play(self, log: list[Mapping[str, Any]], first: int) -> None:
        for i in range(first, len(log)):
            try:
                self.submit(log[i])
            except IllegalEvent as err:
                raise Refused(409, say("The log no longer plays from entry {entry}: {reason}", entry=i, reason=err.message)) from None
            except RefereeBug as err:
                raise Refused(409, say("The log no longer plays from entry {entry}: {reason}", entry=i, reason=str(err))) from None
            self.replayed += 1

    @classmethod
    def load(cls, record: GameRecord, rows: list[tuple[str, str | None]],
             stored: list[CheckpointRow]) -> "Session":
        """A stored game: from its latest usable checkpoint and the log after it, else the whole log.
        A checkpoint is used only if it was made by this rules code (``referee_version``), every entry
        before it has its rulings kept, the digest of those entries and rulings is the one it was made
        with, and it loads as exactly the state it was made from."""
        with _no_gc():   # tens of thousands of small objects that all live on: collecting them is waste
            return cls._load(record, rows, stored)

    @classmethod
    def _load(cls, record: GameRecord, rows: list[tuple[str, str | None]],
              stored: list[CheckpointRow]) -> "Session":
        log = [json.loads(entry) for entry, _ in rows]
        version = referee_version()
        wanted = {s.seq: s for s in stored if s.version == version and 0 < s.seq <= len(rows)}
        kept = next((i for i, (_, r) in enumerate(rows) if r is None), len(rows))   # rulings kept before this
        hashers: dict[int, Any] = {}
        hasher = hashlib.sha256()
        top = max((seq for seq in wanted if seq <= kept), default=0)
        for i in range(top):
            _digest(hasher, rows[i][0], rows[i][1] or "")
            if i + 1 in wanted:
                hashers[i + 1] = hasher.copy()
        usable = [s for seq, s in sorted(wanted.items()) if seq in hashers and hashers[seq].hexdigest() == s.digest]
        session = cls(record)
        for cp in reversed(usable):
            try:
                state = load_state(cp.state, session.table.game, cp.check)
                rulings = [json.loads(rows[i][1]) for i in range(cp.seq)]
                earlier = [Checkpoint(s, hashers[s.seq], stored=True) for s in usable if s.seq <= cp.seq]
                session._resume(log[:cp.seq], rulings, state, hashers[cp.seq], earlier)
                break
            except Exception as err:  # whatever is wrong with it, the log is there
                print(f"warref: game {record.id}'s checkpoint at entry {cp.seq} is not used ({err}); replaying")
                session = cls(record)
        start = len(session.table.log)
        session._play(log, start)
        used = {s.seq for s in session.made if s.stored}
        session.stale_checkpoints = [s.seq for s in stored if s.seq not in used]
        session.stale_rulings = [(i, session.entry_rulings[i]) for i in range(start, len(rows))
                                 if rows[i][1] != json.dumps(session.entry_rulings[i])]
        return session

    def _resume(self, log: list[dict[str, Any]], rulings: list[list[dict[str, Any]]], state: Any, hasher: Any,
                made: list["Checkpoint"], events: list[Any] | None = None) -> None:
        """Take up a fresh session at the end of ``log`` (whose entries gave ``rulings`` and left
        ``state``) without replaying it. ``made``: checkpoints of this log up to its end."""
        table = self.table
        in_force: list[int] = []
        at: dict[int, tuple[int, int | None]] = {}    # checkpoint seq -> (entries in force, the last one)
        seqs = {s.seq for s in made}
        for i, entry in enumerate(log):
            if entry.get("type") == "undo":
                in_force.pop()
            else:
                in_force.append(i)
            if i + 1 in seqs:
                at[i + 1] = (len(in_force), in_force[-1] if in_force else None)
        events = list(events) if events is not None else [None] * len(log)
        for i in in_force:
            if events[i] is None:
                events[i] = parse_event(log[i])
        table.log = list(log)
        table.effective = [events[i] for i in in_force]
        table.state = state
        self.events = list(events)
        self.in_force = in_force
        self.entry_rulings = list(rulings)
        self.last = rulings[-1] if rulings else self.last
        self._hasher = hasher.copy()
        self.made = list(made)
        for s in self.made:    # the undo checkpoints: those whose entries in force are still in force
            n, last = at[s.seq]
            if n and n <= len(in_force) and in_force[n - 1] == last:
                self.checkpoints.saved.append((n, events[last], s.row.state))
        self.battles, self._open = [], _OpenBattle()
        for seq in in_force:
            self._feed(seq)

    def corrected(self, log: list[dict[str, Any]], seq: int) -> "Session":
        """A new session for ``log``, this session's log changed from entry ``seq`` on: replayed from
        the latest checkpoint at or before ``seq`` (the entries before it are the same)."""
        fresh = Session(self.record, self.checkpoint_every)
        fresh.photos = set(self.photos)
        before = [s for s in self.made if s.seq <= seq]
        if before:
            cp = before[-1]
            try:
                state = load_state(cp.row.state, fresh.table.game)
                fresh._resume(log[:cp.seq], self.entry_rulings[:cp.seq], state, cp.hasher, before,
                              self.events[:cp.seq])
            except CheckpointError:
                fresh = Session(self.record, self.checkpoint_every)
                fresh.photos = set(self.photos)
        fresh._play(log, len(fresh.table.log))
        return fresh

    # -- applying ----------------------------------------------------------------------------------
    def submit(self, obj: Any) -> list[dict[str, Any]]:
        """Apply one event (IllegalEvent if refused; nothing changes then)."""
        seq = len(self.table.log)
        rulings = [said_json(r) for r in self.table.submit(obj)]
        entry = self.table.log[seq]
        self.entry_rulings.append(rulings)
        if entry.get("type") == "undo":
            self.events.append(None)
            undone = self.in_force.pop()
            while self.battles and self.battles[-1]["seq"] >= undone:
                self.battles.pop()
            # the battle being played again: the entries in force since the last battle left
            last = self.battles[-1]["seq"] if self.battles else -1
            self._open = _OpenBattle()
            for i in self.in_force[bisect.bisect_right(self.in_force, last):]:
                self._feed(i)
        else:
            self.events.append(self.table.effective[-1])
            self.in_force.append(seq)
            self._feed(seq)
        self.last = rulings
        _digest(self._hasher, json.dumps(entry), json.dumps(rulings))
        if len(self.table.log) % self.checkpoint_every == 0:
            self._checkpoint()
        return rulings

    def _checkpoint(self) -> None:
        """A checkpoint of the state after the whole log (never at the cost of the event: a failure is
        only printed)."""
        table = self.table
        try:
            blob = dump_state(table.state, table.game)
            row = CheckpointRow(len(table.log), referee_version(), self._hasher.hexdigest(), blob,
                              check_text(table.state))
        except Exception as err:
            print(f"warref: no checkpoint at entry {len(table.log)}: {err!r}")
            return
        self.made.append(Checkpoint(row, self._hasher.copy()))
        if table.effective:
            self.checkpoints.saved.append((len(table.effective), table.effective[-1], blob))

    def unsaved(self) -> list[CheckpointRow]:
        return [s.row for s in self.made if not s.stored]

    def saved(self) -> None:
        for s in self.made:
            s.stored = True

    def _feed(self, seq: int) -> None:
        """Add the entry in force at log index ``seq`` to the history: the cards it turned up, and the
        battle its rulings decided (with every ruling since the last battle)."""
        o = self._open
        for seat, card in turned_up(self.table.log[seq]).items():
            seat = self._seat(seat)
            o.cards[seat] = card
            o.card_seq[seat] = seq
            o.turned.setdefault(seat, []).append(card)
        decided = None
        for r in self.entry_rulings[seq]:
            if r["type"] == "prompt":
                continue
            if r["type"] in DECIDING:
                decided = {"seq": seq, "battle": len(self.battles) + 1, "text": r["text"],
                           **({"msg": r["msg"]} if "msg" in r else {}), "cards": dict(o.cards),
                           "card_seq": dict(o.card_seq), "turned": {s: list(c) for s, c in o.turned.items()},
                           "rulings": o.pending + [r]}
                self.battles.append(decided)
                o.pending = []
            elif decided is not None:
                decided["rulings"].append(r)
            else:
                o.pending.append(r)
        if decided is not None:
            self._open = _OpenBattle(pending=o.pending)

    # -- reading -----------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.table.state.over)

    @property
    def result(self) -> dict[str, Any] | None:
        return getattr(self.table.state, "result", None) if self.over else None

    def said_result(self) -> dict[str, Any] | None:
        """The result as a view carries it: with its sentence's message beside the text (``msg``)."""
        result = self.result
        return {**result, **message_field(result.get("text"))} if result else result

    def _seat(self, name: str) -> str:
        for p in self.table.players:
            if p.lower() == str(name).strip().lower():
                return p
        return str(name)

    def _battle(self, b: dict[str, Any]) -> dict[str, Any]:
        return {**b, "photo": f"/api/photos/{self.record.id}/{b['seq']}.jpg" if b["seq"] in self.photos else None}

    def history(self) -> list[dict[str, Any]]:
        """Every battle, oldest first (a view carries only the newest: see ``history_page``)."""
        return [self._battle(b) for b in self.battles]

    def history_page(self, before: int | None = None, limit: int = HISTORY_PAGE) -> dict[str, Any]:
        """The battles numbered below ``before`` (1 is the first battle; None: all), at most
        ``limit`` of them, the newest of those: oldest first, as in a view."""
        total = len(self.battles)
        end = total if before is None else max(0, min(total, before - 1))
        start = max(0, end - limit)
        return {"game_id": self.record.id, "history": [self._battle(b) for b in self.battles[start:end]],
                "history_from": start, "history_total": total}

    def view(self, clock: dict[str, Any], battles: int = VIEW_BATTLES) -> dict[str, Any]:
        state = self.table.state
        counts = state.counts()
        seats = getattr(state, "players", {})
        players = []
        for p in self.record.players:
            seat = seats.get(p["name"]) if isinstance(seats, dict) else None
            players.append({"name": p["name"], "colour": p["colour"], "count": counts.get(p["name"], 0),
                            "out": bool(getattr(seat, "out", False))})
        prompt = said_json(state.prompt())
        prompt.pop("type", None)
        entry_now = entry_now_of(state, self.entry, self.table.players, prompt.get("waiting") or [])
        entry_now["msgs"] = why_messages(entry_now)
        total = len(self.battles)
        start = max(0, total - battles)
        return {
            "game_id": self.record.id, "game": self.table.game.id, "name": self.table.game.name,
            "players": players, "options": self.table.options,
            "rule_sheet": self.table.game.rule_sheet(self.table.options),
            "rule_sheet_parts": rule_sheet_parts(self.table.game, self.table.options),
            "prompt": prompt,
            "pile": len(getattr(state, "middle", []) or []) + int(getattr(state, "carried", 0) or 0),
            "over": self.over, "result": self.said_result(),
            "last": self.last, "history": [self._battle(b) for b in self.battles[start:]],
            "history_from": start, "history_total": total, "log_length": len(self.table.log),
            "created": self.record.created, "finished": self.record.finished,
            "deck": self.record.deck,
            "entry": self.entry, "entry_now": entry_now,
            "clock": clock,
        }



@dataclass
class _OpenBattle:
    """What the entries since the last battle have turned up and been told."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    cards: dict[str, str] = field(default_factory=dict)
    card_seq: dict[str, int] = field(default_factory=dict)
    turned: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Checkpoint:
    """A checkpoint of a session's state after its first ``row.seq`` log entries, with the digest of
    those entries (to carry on from), and whether the store has it."""
    row: CheckpointRow
    hasher: Any
    stored: bool = False

    @property
    def seq(self) -> int:
        return self.row.seq



@contextlib.contextmanager
def _no_gc() -> Any:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _digest(hasher: Any, entry: str, rulings: str) -> None:
    """Add one log entry and its rulings, as the store keeps them (JSON text), to a digest."""
    hasher.update(entry.encode())
    hasher.update(b"\x00")
    hasher.update(rulings.encode())
    hasher.update(b"\x01")


class Checkpoints:
    """Where an undo starts replaying the entries in force (the referee's Table calls ``start``,
    its ``replay_from``): the latest checkpoint whose entries are all still in force, else the start.
    ``saved``: (entries in force, the last of them, the state after them) for each checkpoint."""

    def __init__(self, game: Game):
        self.game = game
        self.saved: list[tuple[int, Event, bytes]] = []
        self.rebuilt = 0              # events replayed by undos (tests read it)

    def start(self, in_force: Sequence[Event]) -> tuple[State, int] | None:
        n_in_force = len(in_force)
        valid = [c for c in self.saved if c[0] <= n_in_force and in_force[c[0] - 1] is c[1]]
        self.saved = valid            # one taken back is never in force again: the log only grows
        for n, _, blob in sorted(valid, key=lambda c: c[0], reverse=True):
            try:
                state = load_state(blob, self.game)
            except CheckpointError:
                continue
            self.rebuilt += n_in_force - n
            return state, n
        self.rebuilt += n_in_force
        return None


def rule_sheet_parts(game: Game, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rule sheet's lines in their parts (each marked for the translators in the game's options), so a
    page says each line in its own language as ``Option.describe`` says it in English: "label: value
    (choice). help"."""
    return [o.parts(options[o.name]) for o in game.options]


def why_messages(found: Any, out: dict[str, Any] | None = None) -> dict[str, Any]:
    """The message of every sentence an entry panel's ``now`` gives why an action can't be taken now,
    by its English text (the page shows each in its own language)."""
    out = {} if out is None else out
    if isinstance(found, dict):
        for value in found.values():
            why_messages(value, out)
    elif isinstance(found, list):
        for value in found:
            why_messages(value, out)
    elif isinstance(found, str) and found not in out:
        said = message(found)
        if said is not None:
            out[str(found)] = said
    return out


def said_json(ruling: Any) -> dict[str, Any]:
    """A ruling as JSON, with the message its text carries (``msg``: referee/say.py) beside the English
    ``text``, so each page says it in its own language; a text made without a message has none."""
    return {**ruling.to_json(), **message_field(ruling.text)}


def turned_up(entry: Mapping[str, Any]) -> dict[str, str]:
    """The cards a log entry turns face up, by seat (a ``flip`` or a ``flips``; none for other events)."""
    if entry.get("type") == "flip":
        return {entry["seat"]: entry["card"]}
    return dict(entry["cards"]) if entry.get("type") == "flips" else {}
