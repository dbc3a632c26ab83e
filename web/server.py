"""`warref serve`: the tablet dashboard's API and WebSocket (docs/dashboard-api.md).

One referee Table for the current game lives in memory; the SQLite store (web/store.py) holds every
accepted log entry and the clock, committed before anything is answered or pushed. Every change to
the referee or the clock happens under one asyncio lock (in a thread, so that a long correction
does not hold up the other pages and sockets), so concurrent requests are applied one at a time and
each push goes out in the order of the changes. With `--workers`, each process has its own memory
of the table and reads and changes it through the one database (``Referee.sync``, ``Referee.change``).
"""
from __future__ import annotations

import asyncio
import bisect
import contextlib
import gc
import hashlib
import hmac
import io
import json
import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable, Iterable, Mapping

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.exceptions import HTTPException, RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from referee import GAMES, OptionError, SetupError, Table, get_game
from referee.entry import now as entry_now_of, panel as entry_panel
from referee.errors import IllegalEvent
from referee.events import parse_event
from referee.table import RefereeBug

from . import guard, rooms_api
from .errors import Refused
from .rooms import Rooms, open_store
from .snapshots import SnapshotError, check_text, dump_state, load_state, referee_version
from .store import AnswerRow, ClockState, GameRecord, SnapshotRow, Stale, Store

MAX_BODY = 64 * 1024
DECIDING = ("battle", "rodada")  # rulings that close one entry of the history (Guerra's tricks are rodadas)
WS_MESSAGE_LIMIT = 1024          # what a viewer may send (it needs to send nothing); uvicorn caps frames too
PIN_SENTENCE = "This needs the table's PIN (shown on the server's console)."
STATIC = Path(__file__).parent / "static"
PALETTE = ("#e4572e", "#29335c", "#f3a712", "#669bbc", "#a8c686", "#8e44ad", "#16a085", "#d35400")
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
CLOCK_PUSH_S = 5.0
NO_CAMERA = {"status": "off", "source": None, "fps": 0.0, "frame": None,
             "message": "No camera is attached (start warref run or warref demo)."}
HISTORY_TAIL = 5      # a pushed view carries only the newest battles; a page keeps the rest
VIEW_BATTLES = 20     # /api/state, the WebSocket hello and answers carry the newest battles ...
HISTORY_PAGE, HISTORY_PAGE_MAX = 50, 200   # ... and GET /api/games/{id}/history pages the rest
SNAPSHOT_EVERY = 500  # entries between two snapshots of the referee's state (web/snapshots.py)
TRIES = 3             # a change tried again when another process's change lands first (Referee.change)
ANSWER_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


def pushed(view: dict[str, Any]) -> dict[str, Any]:
    """The view as pushed after an event: its history cut to the newest HISTORY_TAIL battles, with
    ``history_start`` (and ``history_from``) saying where they begin in the whole list (the page keeps
    the older ones it has, or pages them). A long Classic War game has hundreds of battles: pushing
    all of them to every viewer after every card would grow each message to hundreds of kilobytes."""
    history = view.get("history") or []
    cut = max(0, len(history) - HISTORY_TAIL)
    start = int(view.get("history_from") or 0) + cut
    return {**view, "history": history[cut:], "history_start": start, "history_from": start}


# ----------------------------------------------------------------------------------- one game
class Session:
    """A game being refereed: the Table, the rulings each log entry gave, which entries are in force
    (undo entries take back the entry before them) and the battles they decided.

    The cost of an event does not grow with the game (issue 41): the battles are kept as the entries
    come (an undo takes back only the last one's), a view carries only the newest battles (the rest
    are paged, ``history_page``), and every ``snapshot_every`` entries the state is snapshotted
    (web/snapshots.py): a restart, a correction or an undo replays the log only from the latest
    snapshot before the point it needs."""

    def __init__(self, record: GameRecord, snapshot_every: int | None = None):
        self.record = record
        self.table = _Table(record.game, [p["name"] for p in record.players], record.options)
        self.entry_rulings: list[list[dict[str, Any]]] = []   # per log index
        self.events: list[Any] = []                           # per log index: the parsed event (None: undo)
        self.effective: list[int] = []                        # log indexes in force, in order
        self.last: list[dict[str, Any]] = [self.table.state.prompt().to_json()]
        self.photos: set[int] = set()                         # log indexes with a stored battle photo
        self.battles: list[dict[str, Any]] = []               # the history, oldest first (no photo URLs)
        self._open = _OpenBattle()                            # the battle the entries since the last are playing
        self._hasher = hashlib.sha256()                       # digest of the log and rulings so far
        self.snaps: list[Snap] = []                           # snapshots of this log, oldest first
        self.snapshot_every = snapshot_every or SNAPSHOT_EVERY
        self.replayed = 0          # entries the rules replayed to build this session (a restart: the tail)
        self.stale_rulings: list[tuple[int, list[dict[str, Any]]]] = []   # rulings the store lacks (load)
        self.stale_snapshots: list[int] = []                  # stored snapshots that cannot be used (load)
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
                raise Refused(409, f"The log no longer plays from entry {i}: {err.message}") from None
            except RefereeBug as err:
                raise Refused(409, f"The log no longer plays from entry {i}: {err}") from None
            self.replayed += 1

    @classmethod
    def load(cls, record: GameRecord, rows: list[tuple[str, str | None]],
             stored: list[SnapshotRow]) -> "Session":
        """A stored game: from its latest usable snapshot and the log after it, else the whole log.
        A snapshot is used only if it was made by this rules code (``referee_version``), every entry
        before it has its rulings kept, the digest of those entries and rulings is the one it was made
        with, and it loads as exactly the state it was made from."""
        with _no_gc():   # tens of thousands of small objects that all live on: collecting them is waste
            return cls._load(record, rows, stored)

    @classmethod
    def _load(cls, record: GameRecord, rows: list[tuple[str, str | None]],
              stored: list[SnapshotRow]) -> "Session":
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
        for snap in reversed(usable):
            try:
                state = load_state(snap.state, session.table.game, snap.check)
                rulings = [json.loads(rows[i][1]) for i in range(snap.seq)]
                earlier = [Snap(s, hashers[s.seq], stored=True) for s in usable if s.seq <= snap.seq]
                session._resume(log[:snap.seq], rulings, state, hashers[snap.seq], earlier)
                break
            except Exception as err:  # whatever is wrong with it, the log is there
                print(f"warref: game {record.id}'s snapshot at entry {snap.seq} is not used ({err}); replaying")
                session = cls(record)
        start = len(session.table.log)
        session._play(log, start)
        used = {s.seq for s in session.snaps if s.stored}
        session.stale_snapshots = [s.seq for s in stored if s.seq not in used]
        session.stale_rulings = [(i, session.entry_rulings[i]) for i in range(start, len(rows))
                                 if rows[i][1] != json.dumps(session.entry_rulings[i])]
        return session

    def _resume(self, log: list[dict[str, Any]], rulings: list[list[dict[str, Any]]], state: Any, hasher: Any,
                snaps: list["Snap"], events: list[Any] | None = None) -> None:
        """Take up a fresh session at the end of ``log`` (whose entries gave ``rulings`` and left
        ``state``) without replaying it. ``snaps``: snapshots of this log up to its end."""
        table = self.table
        effective: list[int] = []
        at: dict[int, tuple[int, int | None]] = {}    # snapshot seq -> (entries in force, the last one)
        seqs = {s.seq for s in snaps}
        for i, entry in enumerate(log):
            if entry.get("type") == "undo":
                effective.pop()
            else:
                effective.append(i)
            if i + 1 in seqs:
                at[i + 1] = (len(effective), effective[-1] if effective else None)
        events = list(events) if events is not None else [None] * len(log)
        for i in effective:
            if events[i] is None:
                events[i] = parse_event(log[i])
        table.log = list(log)
        table.effective = [events[i] for i in effective]
        table.state = state
        self.events = list(events)
        self.effective = effective
        self.entry_rulings = list(rulings)
        self.last = rulings[-1] if rulings else self.last
        self._hasher = hasher.copy()
        self.snaps = list(snaps)
        for s in self.snaps:   # the undo checkpoints: those whose entries in force are still in force
            n, last = at[s.seq]
            if n and n <= len(effective) and effective[n - 1] == last:
                table.checkpoints.append((n, events[last], s.row.state))
        self.battles, self._open = [], _OpenBattle()
        for seq in effective:
            self._feed(seq)

    def corrected(self, log: list[dict[str, Any]], seq: int) -> "Session":
        """A new session for ``log``, this session's log changed from entry ``seq`` on: replayed from
        the latest snapshot at or before ``seq`` (the entries before it are the same)."""
        fresh = Session(self.record, self.snapshot_every)
        fresh.photos = set(self.photos)
        before = [s for s in self.snaps if s.seq <= seq]
        if before:
            snap = before[-1]
            try:
                state = load_state(snap.row.state, fresh.table.game)
                fresh._resume(log[:snap.seq], self.entry_rulings[:snap.seq], state, snap.hasher, before,
                              self.events[:snap.seq])
            except SnapshotError:
                fresh = Session(self.record, self.snapshot_every)
                fresh.photos = set(self.photos)
        fresh._play(log, len(fresh.table.log))
        return fresh

    # -- applying ----------------------------------------------------------------------------------
    def submit(self, obj: Any) -> list[dict[str, Any]]:
        """Apply one event (IllegalEvent if refused; nothing changes then)."""
        seq = len(self.table.log)
        rulings = [r.to_json() for r in self.table.submit(obj)]
        entry = self.table.log[seq]
        self.entry_rulings.append(rulings)
        if entry.get("type") == "undo":
            self.events.append(None)
            undone = self.effective.pop()
            while self.battles and self.battles[-1]["seq"] >= undone:
                self.battles.pop()
            # the battle being played again: the entries in force since the last battle left
            last = self.battles[-1]["seq"] if self.battles else -1
            self._open = _OpenBattle()
            for i in self.effective[bisect.bisect_right(self.effective, last):]:
                self._feed(i)
        else:
            self.events.append(self.table.effective[-1])
            self.effective.append(seq)
            self._feed(seq)
        self.last = rulings
        _digest(self._hasher, json.dumps(entry), json.dumps(rulings))
        if len(self.table.log) % self.snapshot_every == 0:
            self._snapshot()
        return rulings

    def _snapshot(self) -> None:
        """Snapshot the state after the whole log (never at the cost of the event: a failure is only
        printed)."""
        table = self.table
        try:
            blob = dump_state(table.state, table.game)
            row = SnapshotRow(len(table.log), referee_version(), self._hasher.hexdigest(), blob,
                              check_text(table.state))
        except Exception as err:
            print(f"warref: no snapshot at entry {len(table.log)}: {err!r}")
            return
        self.snaps.append(Snap(row, self._hasher.copy()))
        if table.effective:
            table.checkpoints.append((len(table.effective), table.effective[-1], blob))

    def unsaved(self) -> list[SnapshotRow]:
        return [s.row for s in self.snaps if not s.stored]

    def saved(self) -> None:
        for s in self.snaps:
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
                decided = {"seq": seq, "battle": len(self.battles) + 1, "text": r["text"], "cards": dict(o.cards),
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
        prompt = state.prompt().to_json()
        prompt.pop("type", None)
        entry_now = entry_now_of(state, self.entry, self.table.players, prompt.get("waiting") or [])
        total = len(self.battles)
        start = max(0, total - battles)
        return {
            "game_id": self.record.id, "game": self.table.game.id, "name": self.table.game.name,
            "players": players, "options": self.table.options,
            "rule_sheet": self.table.game.rule_sheet(self.table.options),
            "prompt": prompt,
            "pile": len(getattr(state, "middle", []) or []) + int(getattr(state, "carried", 0) or 0),
            "over": self.over, "result": self.result,
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
class Snap:
    """A snapshot of a session's state after its first ``row.seq`` log entries, with the digest of
    those entries (to carry on from), and whether the store has it."""
    row: SnapshotRow
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


class _Table(Table):
    """The referee's Table, whose undo (``_rebuild``: the entries in force replayed from a fresh
    state) starts from the latest snapshot whose entries are still in force."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.checkpoints: list[tuple[int, Any, bytes]] = []   # (entries in force, the last one, state)
        self.rebuilt = 0                                        # events replayed by undos (tests read it)

    def _rebuild(self) -> Any:
        n_in_force = len(self.effective)
        valid = [c for c in self.checkpoints if c[0] <= n_in_force and self.effective[c[0] - 1] is c[1]]
        self.checkpoints = valid     # one taken back is never in force again: the log only grows
        state, start = None, 0
        for n, _, blob in sorted(valid, key=lambda c: c[0], reverse=True):
            try:
                state, start = load_state(blob, self.game), n
                break
            except SnapshotError:
                continue
        if state is None:
            state = self._fresh()
        for event in self.effective[start:]:
            state.apply(event)
        self.rebuilt += n_in_force - start
        return state


def turned_up(entry: Mapping[str, Any]) -> dict[str, str]:
    """The cards a log entry turns face up, by seat (a ``flip`` or a ``flips``; none for other events)."""
    if entry.get("type") == "flip":
        return {entry["seat"]: entry["card"]}
    return dict(entry["cards"]) if entry.get("type") == "flips" else {}


def _strip_seq(ruling: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ruling.items() if k != "seq"}


def changed_rulings(old: list[list[dict]], new: list[list[dict]], seq: int, deleted: bool) -> list[dict]:
    """The rulings of the corrected log that differ from those the old log gave at the same place
    (the entries before ``seq`` are the same, so are their rulings)."""
    out = []
    for j in range(seq, len(new)):
        rulings = new[j]
        i = j if (not deleted or j < seq) else j + 1
        before = old[i] if i < len(old) else []
        for k, r in enumerate(rulings):
            if k >= len(before) or _strip_seq(before[k]) != _strip_seq(r):
                out.append(r)
    return out


# ----------------------------------------------------------------------------------- viewers
class Viewer:
    def __init__(self, ws: WebSocket):
        self.ws = ws
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=256)
        self.dropped = False


class Hub:
    """One fan-out: each viewer has its own queue and sender task, so a slow or dead viewer only
    fills its own queue (and is dropped when it is full) instead of holding up the others."""

    def __init__(self) -> None:
        self.viewers: set[Viewer] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def add(self, viewer: Viewer, first: str) -> None:
        self.loop = asyncio.get_running_loop()
        viewer.queue.put_nowait(first)
        self.viewers.add(viewer)

    def remove(self, viewer: Viewer) -> None:
        self.viewers.discard(viewer)

    def broadcast(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every viewer; from another thread (a change made off the event loop)
        it is handed to the loop, as asyncio's queues want."""
        text = json.dumps(message, ensure_ascii=False)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self.loop is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self._deliver, text)
            return
        self._deliver(text)

    def _deliver(self, text: str) -> None:
        for viewer in list(self.viewers):
            try:
                viewer.queue.put_nowait(text)
            except asyncio.QueueFull:
                viewer.dropped = True
                self.viewers.discard(viewer)
                with contextlib.suppress(asyncio.QueueFull):
                    viewer.queue.get_nowait()
                    viewer.queue.put_nowait(None)


# ----------------------------------------------------------------------------------- the server
class Referee:
    def __init__(self, store: Store, now: Callable[[], float]):
        self.store = store
        self.now = now
        self.lock = asyncio.Lock()
        self.hub = Hub()
        self.session: Session | None = None
        self.last_clock_push = 0.0
        self._past: Session | None = None       # the past game read last (its views and history pages)
        self._pending: AnswerRow | None = None   # the answer to keep with the change under way (``once``)
        store.loaded()
        current = store.current_id()
        if current is not None:
            record = store.game(current)
            if record is not None:
                self.session = self._load(record)

    def _load(self, record: GameRecord) -> Session:
        """A stored game, from its latest usable snapshot (Session.load); what the store lacked or had
        stale (rulings of entries replayed, snapshots made meanwhile) is stored for next time."""
        session = Session.load(record, self.store.entries(record.id), self.store.snapshots(record.id))
        session.photos = self.store.photo_seqs(record.id)
        if session.stale_rulings or session.stale_snapshots or session.unsaved():
            try:
                self.store.save_derived(record.id, session.stale_rulings, session.unsaved(),
                                        session.stale_snapshots)
                session.saved()
            except Exception as err:  # only an accelerator: the game goes on without it
                print(f"warref: game {record.id}'s snapshots were not stored: {err!r}")
        session.stale_rulings, session.stale_snapshots = [], []
        return session

    # -- reading ---------------------------------------------------------------------------------
    def clock_json(self) -> dict[str, Any]:
        now = self.now()
        if self.session is None:
            return ClockState().to_json(now)
        return self.session.record.clock.to_json(now)

    def view(self) -> dict[str, Any]:
        if self.session is None:
            return {"game": None, "clock": self.clock_json()}
        return self.session.view(self.clock_json())

    def game_view(self, game_id: int) -> dict[str, Any]:
        session = self.game(game_id)
        return session.view(session.record.clock.to_json(self.now()))

    def game(self, game_id: int) -> Session:
        """The game ``game_id``: the current one, else a past one (it no longer changes: the last one read
        is kept); 404 if there is none."""
        if self.session is not None and self.session.record.id == game_id:
            return self.session
        if self._past is not None and self._past.record.id == game_id:
            return self._past
        record = self.store.game(game_id) if 0 < game_id < 2 ** 63 else None
        if record is None:
            raise Refused(404, f"There is no game {game_id}.")
        self._past = self._load(record)
        return self._past

    def history(self, game_id: int, before: int | None, limit: int | None) -> dict[str, Any]:
        """A page of a game's battles (docs/dashboard-api.md, "History pages")."""
        if limit is None:
            limit = HISTORY_PAGE
        if not 1 <= limit <= HISTORY_PAGE_MAX:
            raise Refused(422, f"limit is how many battles to send, 1 to {HISTORY_PAGE_MAX} (got {limit}).")
        if before is not None and before < 1:
            raise Refused(422, f"before is a battle number, 1 or more (got {before}).")
        return self.game(game_id).history_page(before, limit)

    def need_game(self) -> Session:
        if self.session is None:
            raise Refused(409, "There is no game yet; set one up first.")
        return self.session

    # -- changing (call under self.lock) ----------------------------------------------------------
    def _settle(self, session: Session) -> tuple[float | None, dict | None, bool]:
        """Bring the record's finished/result (and clock: it stops when the game ends) up to date."""
        record = session.record
        clock_changed = False
        if session.over:
            if record.finished is None:
                record.finished = self.now()
            record.result = session.result
            if record.clock.running:
                self._pause(record.clock)
                clock_changed = True
        else:
            record.finished, record.result = None, None
        return record.finished, record.result, clock_changed

    def _pause(self, clock: ClockState) -> None:
        if clock.started_at is not None:
            clock.elapsed = min(clock.length, clock.used(self.now()))
            clock.started_at = None

    def new_game(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise Refused(400, 'Send the new game as a JSON object such as {"game": "classic", "players": [...]}.')
        game_id = body.get("game")
        if not isinstance(game_id, str):
            raise Refused(422, f"Say which game to play (\"game\": one of {', '.join(GAMES)}).")
        players_in = body.get("players")
        if not isinstance(players_in, list) or not players_in:
            raise Refused(422, 'List the players in seat order ("players": [{"name": "Alex"}, ...]).')
        players: list[dict[str, str]] = []
        for i, p in enumerate(players_in):
            if isinstance(p, str):
                p = {"name": p}
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                raise Refused(422, f"Player {i + 1} needs a name (\"name\": \"Alex\").")
            colour = p.get("colour")
            if colour is None:
                colour = PALETTE[i % len(PALETTE)]
            if not isinstance(colour, str) or not COLOUR.match(colour):
                raise Refused(422, f"{p['name']}'s colour must be written like #e4572e (got {colour!r}).")
            players.append({"name": p["name"].strip(), "colour": colour.lower()})
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise Refused(422, 'Give the rule options as an object such as {"war_down": "3"}.')
        minutes = body.get("clock_minutes")
        length = 0.0
        if minutes is not None:
            length = self._minutes(minutes) * 60
        try:
            game = get_game(game_id)
            table = Table(game, [p["name"] for p in players], options)
        except (SetupError, OptionError) as err:
            raise Refused(422, str(err)) from None
        from .teach import check_deck
        deck = check_deck(body.get("deck"), game.id, table.options)
        created = self.now()
        options_in_force = table.options
        if self.session is not None and self.session.record.clock.running:
            # the game left behind keeps its clock stopped where it was
            self._pause(self.session.record.clock)
            self.store.save_clock(self.session.record.id, self.session.record.clock)
        new_id = self.store.new_game(game.id, players, options_in_force, created, length, deck,
                                     answer=self._answer({}, with_view=True))
        record = self.store.game(new_id)
        assert record is not None
        self.session = Session(record)
        view = self.view()
        self.hub.broadcast({"type": "setup", "view": view})
        return view

    @staticmethod
    def _minutes(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 1 / 60 <= value <= 24 * 60:
            raise Refused(422, f"The clock runs from 1 second to 24 hours: a number of minutes from 1/60 to 1440 "
                               f"(got {value!r}).")
        return float(value)

    def submit(self, obj: Any, photo: Callable[[], bytes | None] | None = None) -> dict[str, Any]:
        """Apply one event. ``photo`` (the camera's glue) gives the JPEG of the frame that decided
        it; it is asked for and stored only when the event decides a battle, before anything is pushed."""
        session = self.need_game()
        seq = len(session.table.log)
        try:
            rulings = session.submit(obj)
        except IllegalEvent as err:
            raise Refused(422, err.message) from None
        except RefereeBug as err:
            raise Refused(500, str(err)) from None
        self._commit_entry(session, seq)
        if photo is not None and any(r.get("type") in DECIDING for r in rulings):
            try:
                jpeg = photo()
                if jpeg:
                    self.store.save_photo(session.record.id, seq, jpeg)
                    session.photos.add(seq)
            except Exception as err:  # a photo that cannot be kept never costs the ruling
                print(f"warref: the battle photo for entry {seq} was not kept: {err!r}")
        view = self.view()
        self.hub.broadcast({"type": "rulings", "rulings": rulings, "view": pushed(view)})
        return {"rulings": rulings, "view": view}

    def _commit_entry(self, session: Session, seq: int) -> None:
        finished, result, clock_changed = self._settle(session)
        rulings = session.entry_rulings[seq]
        try:
            self.store.append(session.record.id, seq, session.table.log[seq], finished, result,
                              session.record.clock, rulings=rulings, snapshots=session.unsaved(),
                              answer=self._answer({"rulings": rulings}, with_view=True), now=self.now())
            session.saved()
        except Exception:
            # Not stored: go back to what the store holds, so memory never runs ahead of the disk.
            self._reload()
            raise
        if clock_changed:
            self.hub.broadcast({"type": "clock", "clock": self.clock_json()})

    def _reload(self) -> None:
        self.store.loaded()
        current = self.store.current_id()
        record = self.store.game(current) if current is not None else None
        self.session = self._load(record) if record else None

    # -- several processes, one table (web/store.py, "Several server processes") ---------------------
    def sync(self) -> bool:
        """Load the table again if another process changed it since this one loaded it, and tell this
        process's viewers what changed as if the change had been made here: the new game, the new
        entries' rulings, a correction, the clock. Call under ``self.lock``. Whether it reloaded."""
        if self.store.stored_version() == self.store.version:
            return False
        old = self.session
        old_clock = vars(old.record.clock).copy() if old is not None else None
        self._reload()
        new = self.session
        if new is None:
            return True
        if old is None or old.record.id != new.record.id:
            self.hub.broadcast({"type": "setup", "view": self.view()})
            return True
        before, after = old.table.log, new.table.log
        if after[:len(before)] == before and len(after) > len(before):
            rulings = [r for entry in new.entry_rulings[len(before):] for r in entry]
            self.hub.broadcast({"type": "rulings", "rulings": rulings, "view": pushed(self.view())})
        elif after != before:
            seq = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
            changed = changed_rulings(old.entry_rulings, new.entry_rulings, seq, len(after) < len(before))
            self.hub.broadcast({"type": "correction", "changed": changed, "view": self.view()})
        if vars(new.record.clock) != old_clock:
            self.last_clock_push = self.now()
            self.hub.broadcast({"type": "clock", "clock": self.clock_json()})
        return True

    def change(self, answer_id: str | None, kind: str, body: Any, change: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``once`` on the table as stored now: loaded again first if another process changed it, and
        tried again (up to ``TRIES`` times) when another process's change lands first (``Stale``: this
        one wrote nothing). Call under ``self.lock``."""
        for _ in range(TRIES - 1):
            self.sync()
            try:
                return self.once(answer_id, kind, body, change)
            except Stale:
                continue
        self.sync()
        return self.once(answer_id, kind, body, change)

    # -- ids: a change sent again (a retry after a lost answer) is answered again, not applied again --
    def once(self, answer_id: str | None, kind: str, body: Any,
             change: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run ``change`` (a request of ``kind`` with ``body``, its id taken out) unless a request with
        this id was answered before: then its first answer again, and nothing changes. The answer is
        stored in the same transaction as the change (``_answer``), so a retry after a crash finds
        it; a refusal is stored too (nothing changed then). A first answer that carried a view is
        given again with the current view (views are not stored: they would cost more than the game)."""
        if answer_id is None:
            return change()
        fingerprint = hashlib.sha256(json.dumps([kind, body], sort_keys=True).encode()).hexdigest()
        first = self.store.answer(answer_id)
        if first is not None:
            if first.kind != kind or first.fingerprint != fingerprint:
                raise Refused(409, f"The id {answer_id!r} was already used for another request; "
                                   f"send a new id with each change.")
            if first.status >= 400:
                raise Refused(first.status, str(first.body.get("detail", "")))
            again = dict(first.body)
            if first.with_view:
                again.update(view=self.view(), repeated=True)
            return again
        game_id = self.session.record.id if self.session is not None else None
        self._pending = AnswerRow(answer_id, game_id, kind, fingerprint, 0, {}, False)
        try:
            return change()
        except Refused as err:
            pending = self._pending
            if pending is not None and err.status < 500:
                pending.status, pending.body = err.status, {"detail": err.detail}
                try:
                    self.store.save_answer(pending, self.now())
                except Exception as store_err:  # the refusal stands; a retry is refused again anyway
                    print(f"warref: the answer to {answer_id!r} was not stored: {store_err!r}")
            raise
        finally:
            self._pending = None

    def _answer(self, body: dict[str, Any], with_view: bool) -> AnswerRow | None:
        """The answer to store with the change being committed (once per request; None without an id)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.status, pending.body, pending.with_view = 200, body, with_view
        return pending

    def undo(self) -> dict[str, Any]:
        session = self.need_game()
        if not session.effective:
            raise Refused(409, "There is nothing to undo.")
        return self.submit({"type": "undo"})

    def correct(self, body: Any) -> dict[str, Any]:
        session = self.need_game()
        if not isinstance(body, dict) or "seq" not in body or "event" not in body:
            raise Refused(400, 'Send a correction as {"seq": 4, "event": {...}} (or "event": null to delete it).')
        seq, event = body["seq"], body["event"]
        log = list(session.table.log)
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < len(log):
            raise Refused(422, f"seq must be the index of an entry in the log, 0 to {len(log) - 1} (got {seq!r})."
                          if log else "The log is empty; there is nothing to correct.")
        if event is not None and not isinstance(event, dict):
            raise Refused(422, 'The corrected event must be a JSON object such as {"type": "flip", ...}, or null.')
        if event is None:
            new_log = log[:seq] + log[seq + 1:]
        else:
            try:
                # Parse it alone first, so a malformed event gets its own sentence.
                from referee.events import parse_event
                event = parse_event(event).to_json()
            except IllegalEvent as err:
                raise Refused(422, err.message) from None
            new_log = log[:seq] + [event] + log[seq + 1:]
        fresh = session.corrected(new_log, seq)
        changed = changed_rulings(session.entry_rulings, fresh.entry_rulings, seq, event is None)
        old_state = (session.record.finished, session.record.result, ClockState(**vars(session.record.clock)))
        finished, result, clock_changed = self._settle(fresh)
        try:
            self.store.replace_log(session.record.id, fresh.table.log, finished, result, session.record.clock,
                                   start=seq, rulings=fresh.entry_rulings, snapshots=fresh.unsaved(),
                                   answer=self._answer({"changed": changed}, with_view=True), now=self.now())
            fresh.saved()
        except Exception:
            session.record.finished, session.record.result, session.record.clock = old_state
            raise
        self.session = fresh
        view = self.view()
        self.hub.broadcast({"type": "correction", "changed": changed, "view": view})
        if clock_changed:
            self.hub.broadcast({"type": "clock", "clock": self.clock_json()})
        return {"changed": changed, "view": view}

    def clock_action(self, body: Any) -> dict[str, Any]:
        session = self.need_game()
        if not isinstance(body, dict) or not isinstance(body.get("action"), str):
            raise Refused(400, 'Send a clock action as {"action": "start"} (start, pause, resume, add_minute or set).')
        action = body["action"]
        clock = ClockState(**vars(session.record.clock))
        now = self.now()
        minutes = body.get("minutes")
        if action == "start":
            if minutes is not None:
                clock.length = self._minutes(minutes) * 60
            if clock.length <= 0:
                raise Refused(409, "The clock has no length; set it first (\"minutes\": 10).")
            if session.over:
                raise Refused(409, "The game is over; the clock stays stopped.")
            clock.elapsed, clock.started_at, clock.time_up = 0.0, now, False
        elif action == "pause":
            self._pause(clock)
        elif action == "resume":
            if not clock.running:
                if clock.remaining(now) <= 0:
                    raise Refused(409, "There is no time left on the clock; add a minute or set it again.")
                if session.over:
                    raise Refused(409, "The game is over; the clock stays stopped.")
                clock.started_at = now
        elif action == "add_minute":
            if clock.running and clock.remaining(now) <= 0:
                self._pause(clock)
            clock.length += 60
        elif action == "set":
            if minutes is None:
                raise Refused(422, 'Say how long the clock runs ("minutes": 10).')
            clock.length = self._minutes(minutes) * 60
            clock.elapsed, clock.started_at, clock.time_up = 0.0, None, False
        else:
            raise Refused(422, f"Unknown clock action {action!r}; the actions are start, pause, resume, "
                               f"add_minute and set.")
        answer = clock.to_json(now)
        self.store.save_clock(session.record.id, clock, answer=self._answer(answer, with_view=False), now=now)
        session.record.clock = clock
        self.last_clock_push = now
        self.hub.broadcast({"type": "clock", "clock": answer})
        return answer

    # -- seat zones for the camera -----------------------------------------------------------------
    def zones(self) -> dict[str, Any]:
        """The current game's seat zones: the stored ones, else the defaults around the middle."""
        if self.session is None:
            return {}
        stored = self.store.zones(self.session.record.id)
        players = [p["name"] for p in self.session.record.players]
        if stored and set(stored) == set(players):
            return stored
        from vision.tracker import default_zones
        return {seat: [[float(x), float(y)] for x, y in poly] for seat, poly in default_zones(players).items()}

    def set_zones(self, body: Any) -> dict[str, Any]:
        session = self.need_game()
        if not isinstance(body, dict) or not isinstance(body.get("seats"), dict):
            raise Refused(400, 'Send the zones as {"seats": {"Alex": [[x, y], ...], ...}} (fractions 0..1).')
        players = [p["name"] for p in session.record.players]
        given = {session._seat(k): v for k, v in body["seats"].items()}
        unknown = [k for k in given if k not in players]
        if unknown:
            raise Refused(422, f"{unknown[0]} is not playing; the seats are {', '.join(players)}.")
        missing = [p for p in players if p not in given]
        if missing:
            raise Refused(422, f"Draw a zone for every player (missing: {', '.join(missing)}).")
        seats: dict[str, list[list[float]]] = {}
        for seat in players:
            poly = given[seat]
            ok = isinstance(poly, list) and 3 <= len(poly) <= 64 and all(
                isinstance(pt, list) and len(pt) == 2 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= 1
                    for v in pt) for pt in poly)
            if not ok:
                raise Refused(422, f"{seat}'s zone must be 3 to 64 points [x, y], each a fraction of the "
                                   f"frame between 0 and 1.")
            seats[seat] = [[float(x), float(y)] for x, y in poly]
        self.store.save_zones(session.record.id, seats)
        return seats

    def tick(self) -> None:
        """Call time when the clock runs out (once), and push the clock every few seconds while it runs."""
        session = self.session
        if session is None:
            return
        clock = session.record.clock
        now = self.now()
        if clock.running and clock.remaining(now) <= 0 and not clock.time_up:
            new = ClockState(clock.length, clock.length, None, True)
            self.store.save_clock(session.record.id, new)
            session.record.clock = new
            if not session.over and session.table.can({"type": "time_up"}):
                self.submit({"type": "time_up"})
            self.last_clock_push = now
            self.hub.broadcast({"type": "clock", "clock": self.clock_json()})
        elif clock.running and (now - self.last_clock_push >= CLOCK_PUSH_S or now < self.last_clock_push):
            self.last_clock_push = now
            self.hub.broadcast({"type": "clock", "clock": self.clock_json()})


# ----------------------------------------------------------------------------------- the app
class BodyLimit:
    """Pure ASGI middleware: reads a request body up to MAX_BODY (``larger``: more for the paths
    starting with a prefix, such as photos of cards) and answers 413 beyond it."""

    def __init__(self, app: Any, limit: int = MAX_BODY, larger: tuple[tuple[str, int], ...] = ()):
        self.app, self.limit, self.larger = app, limit, tuple(larger)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path") or ""
        limit = next((n for prefix, n in self.larger if path.startswith(prefix)), self.limit)
        length = dict(scope.get("headers") or []).get(b"content-length")
        too_big = JSONResponse({"detail": f"The request is too large (the limit is {limit // 1024} KB)."},
                               status_code=413)
        if length is not None:
            try:
                if int(length) > limit:
                    return await too_big(scope, receive, send)
            except ValueError:
                return await JSONResponse({"detail": "The Content-Length header is not a number."},
                                          status_code=400)(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return await too_big(scope, receive, send)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body, sent = b"".join(chunks), False

        async def replay() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def json_body(request: Request) -> Any:
    """Dependency: the JSON body (else 400 with a sentence: none, not JSON, nested too deeply)."""
    raw = await request.body()
    if not raw.strip():
        raise Refused(400, "The request needs a JSON body.")
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise Refused(400, "The request body is nested too deeply to be an event.") from None
    except ValueError as err:
        if not isinstance(err, (json.JSONDecodeError, UnicodeDecodeError)):
            raise Refused(400, str(err)) from None
        msg = f" ({err.msg} at line {err.lineno}, column {err.colno})" if isinstance(err, json.JSONDecodeError) else ""
        raise Refused(400, f"The request body is not JSON{msg}.") from None


async def json_or_empty(request: Request) -> Any:
    """Dependency: the JSON body, or {} when the request has none."""
    return await json_body(request) if (await request.body()).strip() else {}


JsonBody = Annotated[Any, Depends(json_body)]           # a route's parameter ``body: JsonBody``
JsonOrEmpty = Annotated[Any, Depends(json_or_empty)]


def create_app(db_path: str | Path, pin: str, *, public_url: str | None = None,
               now: Callable[[], float] = time.time, tick_s: float = 0.25,
               static_dir: str | Path | None = None, live: Any = None,
               hosts: Iterable[str] | None = None, redis_url: str | None = None) -> FastAPI:
    """The dashboard app. ``now`` is the wall clock (injectable for tests); ``tick_s`` how often the
    background task looks at the clock; ``public_url`` the address shown on /api/address. ``live``
    (web/live.py's Live: a camera or the demo's feed) is run as a background task while the app runs.
    ``redis_url``: share Guerra rooms with other server processes through this Redis (web/rooms.py).
    ``hosts``: the names the server answers to (default: this machine's, ``guard.allowed_hosts``;
    ``["*"]``: any)."""
    store = Store(db_path)
    referee = Referee(store, now)
    pin = str(pin)
    from . import teach
    teaching = teach.Teaching(referee.hub.broadcast, live)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async def ticker() -> None:
            while True:
                await asyncio.sleep(tick_s)
                try:
                    async with referee.lock:
                        referee.sync()
                        referee.tick()
                except Stale:             # another process's change landed first: looked at again next tick
                    pass
                except Exception as err:  # never let the clock task die
                    print(f"warref serve: clock tick failed: {err!r}")

        task = asyncio.create_task(ticker())
        room_clock = asyncio.create_task(room_service.run(tick_s))
        camera = asyncio.create_task(live.run(referee)) if live is not None else None
        try:
            yield
        finally:
            teaching.stop(wait=2.0)
            if live is not None:
                live.stop()
            room_service.stop()
            for t in (task, room_clock, camera):
                if t is None:
                    continue
                t.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
            for viewer in list(referee.hub.viewers):
                with contextlib.suppress(asyncio.QueueFull):
                    viewer.queue.put_nowait(None)

    # no /docs or /redoc: their pages load scripts from a CDN, which the CSP (and an offline table) forbids
    app = FastAPI(title="warref dashboard", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="The tablet dashboard's API: see docs/dashboard-api.md.")
    app.state.referee = referee
    app.state.store = store
    app.state.live = live
    app.state.teaching = teaching
    rooms = Rooms(open_store(db_path, redis_url), now=now)
    room_service = rooms_api.install(app, rooms, public_url)
    app.add_middleware(BodyLimit, larger=(("/api/teach/", teach.PHOTO_LIMIT),))
    app.add_middleware(guard.HostCheck, allowed_hosts=list(hosts) if hosts is not None
                       else guard.allowed_hosts(public_url=public_url))
    app.add_middleware(guard.SecurityHeaders)       # outermost: the Host refusal carries the headers too
    limits = guard.PinLimits(db_path, now=now)
    devices = guard.Devices(db_path)
    app.state.limits, app.state.devices = limits, devices

    @app.exception_handler(Refused)
    async def refused(request: Request, err: Refused) -> JSONResponse:
        return JSONResponse({"detail": err.detail}, status_code=err.status, headers=err.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        where = ", ".join(".".join(str(p) for p in e.get("loc", ())) for e in err.errors()[:3])
        return JSONResponse({"detail": f"The request is not valid ({where}: {err.errors()[0].get('msg', '')})."},
                            status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        detail = err.detail
        if err.status_code == 404 and detail == "Not Found":
            detail = f"There is nothing at {request.url.path}."
        elif err.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}."
        return JSONResponse({"detail": detail}, status_code=err.status_code, headers=err.headers)

    def device_of(request: Request) -> int | None:
        return devices.find(guard.token_of(request.headers, request.cookies))

    async def pin_given(request: Request) -> None:
        """Dependency: the table's PIN in X-Warref-Pin, within the limits on wrong PINs (else 401 or 429)."""
        given = request.headers.get("x-warref-pin", "").strip()
        if not given:
            raise Refused(401, PIN_SENTENCE)
        client = request.client.host if request.client else "unknown"
        try:
            limits.check(client)
        except guard.Locked as err:
            raise Refused(429, str(err), {"Retry-After": str(math.ceil(err.seconds))}) from None
        if hmac.compare_digest(given.encode(), pin.encode()):
            limits.right(client)
            return
        wait = limits.wrong(client)
        raise Refused(401, PIN_SENTENCE + (f" Wait {guard.wait_words(wait)} before trying again." if wait else ""))

    async def paired(request: Request) -> None:
        """Dependency: a paired device, else the PIN (docs/dashboard-api.md, "Who may change a game").
        A device known by its cookie alone is a browser: its changes must come from these pages."""
        if device_of(request) is None:
            await pin_given(request)
        elif request.headers.get(guard.HEADER) is None:
            problem = guard.cookie_write_problem(request.method, request.headers, request.url.scheme)
            if problem:
                raise Refused(403, problem)

    PIN, PAIRED = [Depends(pin_given)], [Depends(paired)]   # a route's ``dependencies``

    async def apply_once(request: Request, kind: str, body: Any, change: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``change`` under the game's lock, applied once per id (``answer_id``, ``Referee.once``)."""
        key = answer_id(request, body)
        async with referee.lock:        # off the event loop: a correction replays the log from its entry
            return await asyncio.to_thread(referee.change, key, kind, body, change)

    # -- pairing (web/guard.py) -------------------------------------------------------------------
    @app.post("/api/pair", dependencies=PIN)
    async def pair(request: Request, body: JsonOrEmpty) -> Response:
        name = body.get("name", "") if isinstance(body, dict) else ""
        if not isinstance(name, str) or len(name.strip()) > guard.NAME_LIMIT or not name.isprintable():
            raise Refused(422, f"A device's name is up to {guard.NAME_LIMIT} printable characters.")
        device, token = devices.pair(name.strip() or "A device")
        response = JSONResponse({"device": device, "token": token,
                                 "detail": f"This device is paired: it no longer needs the PIN. Send the token "
                                           f"in the {guard.HEADER} header from an API client."})
        response.set_cookie(guard.COOKIE, token, max_age=400 * 24 * 3600, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
        return response

    @app.get("/api/devices", dependencies=PAIRED)
    async def list_devices(request: Request) -> dict[str, Any]:
        this = device_of(request)
        return {"devices": [{**d, "this": d["id"] == this} for d in devices.all()]}

    @app.delete("/api/devices/{device}", dependencies=PAIRED)
    async def revoke_device(device: str, request: Request) -> Response:
        this = device_of(request)
        if not (device.isascii() and device.isdigit()) or len(device) > 12 or not devices.revoke(int(device)):
            raise Refused(404, f"There is no paired device {device[:20]!r}.")
        response = JSONResponse({"detail": "The device is unpaired: it needs the PIN again."})
        if this == int(device):
            response.delete_cookie(guard.COOKIE, path="/")
        return response

    # -- reading ---------------------------------------------------------------------------------
    @app.get("/api/catalog")
    async def catalog() -> list[dict[str, Any]]:
        return [{"id": g.id, "name": g.name, "min_players": g.min_players, "max_players": g.max_players,
                 "player_counts": list(g.allowed_counts()), "players_text": g.counts_text(),
                 "how_to_play": list(g.how_to_play), "words": dict(g.words),
                 "cards": g.cards_in_play(g.resolve_options(None)),
                 "options": [{"name": o.name, "label": o.label, "default": o.default, "help": o.help, "kind": o.kind,
                              "choices": list(o.choices), "choice_help": dict(o.choice_help or {}),
                              "choice_labels": dict(o.choice_labels or {}),
                              "can_be_off": o.can_be_off, "minimum": o.minimum} for o in g.options],
                 "entry": entry_panel(g)}
                for g in GAMES.values()]

    async def fresh(read: Callable[[], Any]) -> Any:
        """``read`` of the table as stored now (another process may have changed it: Referee.sync)."""
        async with referee.lock:
            referee.sync()
            return read()

    @app.get("/api/state")
    async def state() -> dict[str, Any]:
        return await fresh(referee.view)

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        current = store.current_id()
        return [{"id": r.id, "game": r.game, "name": GAMES[r.game].name if r.game in GAMES else r.game,
                 "players": r.players, "created": r.created, "finished": r.finished, "result": r.result,
                 "current": r.id == current}
                for r in store.games()]

    @app.get("/api/games/{game_id}")
    async def one_game(game_id: int) -> dict[str, Any]:
        return await fresh(lambda: referee.game_view(game_id))

    @app.get("/api/games/{game_id}/history")
    async def game_history(game_id: int, before: int | None = None, limit: int | None = None) -> dict[str, Any]:
        return await fresh(lambda: referee.history(game_id, before, limit))

    def address(request: Request) -> str:
        if public_url:
            return public_url
        return str(request.base_url).rstrip("/")

    @app.get("/api/address")
    async def get_address(request: Request) -> dict[str, str]:
        return {"url": address(request), "qr": "/api/qr.svg"}

    @app.get("/api/qr.svg")
    async def qr(request: Request) -> Response:
        import segno
        out = io.BytesIO()
        segno.make(address(request), error="m").save(out, kind="svg", scale=8, border=2)
        return Response(out.getvalue(), media_type="image/svg+xml")

    # -- changing --------------------------------------------------------------------------------
    @app.post("/api/games", dependencies=PAIRED)
    async def new_game(request: Request, body: JsonBody) -> dict[str, Any]:
        return await apply_once(request, "games", body, lambda: referee.new_game(body))

    @app.post("/api/events", dependencies=PAIRED)
    async def events(request: Request, body: JsonBody) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise Refused(400, 'An event must be a JSON object such as {"type": "flip", "seat": "Alex", "card": "8S"}.')
        return await apply_once(request, "events", body, lambda: referee.submit(body))

    @app.post("/api/undo", dependencies=PAIRED)
    async def undo(request: Request, body: JsonOrEmpty) -> dict[str, Any]:
        return await apply_once(request, "undo", body, referee.undo)

    @app.post("/api/corrections", dependencies=PAIRED)
    async def corrections(request: Request, body: JsonBody) -> dict[str, Any]:
        return await apply_once(request, "corrections", body, lambda: referee.correct(body))

    @app.post("/api/clock", dependencies=PAIRED)
    async def clock(request: Request, body: JsonBody) -> dict[str, Any]:
        return await apply_once(request, "clock", body, lambda: referee.clock_action(body))

    # -- the camera (docs/dashboard-api.md, "Camera") -------------------------------------------------
    @app.get("/api/camera")
    async def camera() -> dict[str, Any]:
        if live is None:
            return dict(NO_CAMERA)
        return live.camera_json()

    async def _camera_jpeg(kind: str) -> Response:
        if live is None:
            raise Refused(404, "No camera is attached (start warref run or warref demo).")
        jpeg = await asyncio.to_thread(live.preview_jpeg if kind == "preview" else live.snapshot_jpeg)
        if jpeg is None:
            raise Refused(404, "The camera has not sent a picture yet.")
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/preview.jpg")
    async def preview() -> Response:
        return await _camera_jpeg("preview")

    @app.get("/api/snapshot.jpg")
    async def snapshot() -> Response:
        return await _camera_jpeg("snapshot")

    @app.get("/api/zones")
    async def get_zones() -> dict[str, Any]:
        return {"seats": await fresh(referee.zones)}

    @app.put("/api/zones", dependencies=PAIRED)
    async def put_zones(body: JsonBody) -> dict[str, Any]:
        async with referee.lock:
            seats = referee.change(None, "zones", body, lambda: referee.set_zones(body))
        if live is not None:
            live.zones_changed(seats)
        return {"seats": seats}

    @app.get("/api/photos/{game_id}/{name}")
    async def photo(game_id: int, name: str) -> Response:
        m = re.fullmatch(r"(\d{1,12})\.jpg", name)
        jpeg = store.photo(game_id, int(m.group(1))) if m and 0 < game_id < 2 ** 63 else None
        if jpeg is None:
            raise Refused(404, f"There is no photo {name} for game {game_id}.")
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "public, max-age=86400"})

    # -- teaching a deck (web/teach.py; docs/dashboard-api.md, "Teaching a deck") -----------------------
    @app.get("/api/decks")
    async def get_decks() -> dict[str, Any]:
        return await asyncio.to_thread(teaching.decks_json)

    @app.delete("/api/decks/{name}", dependencies=PAIRED)
    async def deck_forget(name: str) -> dict[str, Any]:
        return teaching.forget(name)

    @app.post("/api/teach", dependencies=PAIRED)
    async def teach_start(body: JsonBody) -> dict[str, Any]:
        return teaching.start(body)

    @app.get("/api/teach/{name}")
    async def teach_view(name: str) -> dict[str, Any]:
        return teaching.view(name)

    @app.delete("/api/teach/{name}", dependencies=PAIRED)
    async def teach_drop(name: str) -> dict[str, Any]:
        return teaching.drop(name)

    @app.put("/api/teach/{name}/cards/{code}", dependencies=PAIRED)
    async def teach_card(request: Request, name: str, code: str) -> dict[str, Any]:
        return await teaching.upload(name, code, await request.body(), request.query_params.get("file"))

    @app.put("/api/teach/{name}/photos/{filename}", dependencies=PAIRED)
    async def teach_photo(request: Request, name: str, filename: str) -> dict[str, Any]:
        return await teaching.upload_named(name, filename, await request.body())

    @app.post("/api/teach/{name}/cards/{code}/take", dependencies=PAIRED)
    async def teach_take(name: str, code: str) -> dict[str, Any]:
        return await teaching.take(name, code)

    @app.get("/api/teach/{name}/cards/{file}")
    async def teach_card_png(request: Request, name: str, file: str) -> Response:
        m = re.fullmatch(r"([A-Za-z0-9]+)\.png", file)
        if m is None:
            raise Refused(404, f"There is nothing at /api/teach/{name}/cards/{file} (cards are CODE.png).")
        width = request.query_params.get("w", "")
        png = await asyncio.to_thread(teaching.card_png, name, m.group(1), int(width) if width.isascii() and width.isdigit() else None)
        # a URL with ?v= (the picture's time) names one picture for good; without it, the newest
        cache = "private, max-age=86400" if request.query_params.get("v") else "no-store"
        return Response(png, media_type="image/png", headers={"Cache-Control": cache})

    @app.get("/api/teach/{name}/sheet.png")
    async def teach_sheet_png(name: str) -> Response:
        png = await asyncio.to_thread(teaching.sheet_png, name)
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    @app.post("/api/teach/{name}/train", dependencies=PAIRED)
    async def teach_train(name: str, body: JsonOrEmpty) -> dict[str, Any]:
        return teaching.train(name, body)

    # -- pushing ---------------------------------------------------------------------------------
    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        if origin is not None and not guard.same_origin(origin, websocket.headers.get("host"), websocket.url.scheme):
            await websocket.close(code=1008, reason="This dashboard only talks to its own pages.")
            return
        await websocket.accept()
        viewer = Viewer(websocket)
        async with referee.lock:
            referee.sync()
            referee.hub.add(viewer, json.dumps({"type": "hello", "view": referee.view()}, ensure_ascii=False))

        async def sender() -> None:
            while True:
                text = await viewer.queue.get()
                if text is None:
                    await websocket.close()
                    return
                await asyncio.wait_for(websocket.send_text(text), timeout=10)

        send_task = asyncio.create_task(sender())
        receive_task = asyncio.create_task(_drain(websocket))
        try:
            await asyncio.wait({send_task, receive_task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            referee.hub.remove(viewer)
            for task in (send_task, receive_task):
                task.cancel()
            for task in (send_task, receive_task):
                with contextlib.suppress(BaseException):
                    await task

    app.mount("/", _Static(Path(static_dir) if static_dir else STATIC), name="static")
    return app


SETTINGS_VARIABLE = "WARREF_SERVE_SETTINGS"   # how `serve --workers` hands its settings to each worker


def app_from_environment() -> FastAPI:
    """The app of one worker of `warref serve --workers N`: its settings come in an environment variable."""
    return create_app(**json.loads(os.environ[SETTINGS_VARIABLE]))


class _Static:
    """web/static/ at / (index.html for /), looked for at each request: the folder may come later."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files: StaticFiles | None = None

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return
        if not self.folder.is_dir():
            return await JSONResponse({"detail": "The dashboard's pages (web/static/) are not installed."},
                                      status_code=404)(scope, receive, send)
        if self.files is None:
            self.files = StaticFiles(directory=self.folder, html=True)
        await self.files(scope, receive, send)


def answer_id(request: Request, body: Any) -> str | None:
    """The id a change carries (docs/dashboard-api.md, "Ids"): ``"id"`` in its JSON body (taken out
    of it), else the ``Idempotency-Key`` header; None without one."""
    given = body.pop("id", None) if isinstance(body, dict) else None
    if given is None:
        given = request.headers.get("idempotency-key")
    if given is None:
        return None
    if not isinstance(given, str) or not ANSWER_ID.match(given):
        raise Refused(422, 'An id is 1 to 64 letters, digits, ".", "_", ":" or "-" (a UUID will do), sent as "id" '
                           f'in the body or in the Idempotency-Key header (got {str(given)[:80]!r}).')
    return given


def _no_constant(name: str) -> Any:
    raise ValueError(f"The request body is not plain JSON ({name} is not a number JSON knows).")


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what a viewer sends, until it goes away."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if len(message.get("text") or message.get("bytes") or "") > WS_MESSAGE_LIMIT:
                await websocket.close(code=1009, reason="Viewers send nothing but a short ping.")
                return
