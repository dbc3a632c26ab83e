"""The current game of the dashboard's server: ``GameKeeper``.

One referee Table for the current game lives in memory; the SQLite store (web/store.py) holds every
accepted log entry and the clock, committed before anything is answered or pushed. Every change to
the game or the clock happens under one asyncio lock (in a thread, so that a long correction
does not hold up the other pages and sockets), so concurrent requests are applied one at a time and
each push goes out in the order of the changes. With `--workers`, each process has its own memory
of the table and reads and changes it through the one database (``GameKeeper.sync``,
``GameKeeper.change``).
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
from typing import Any, Callable, Mapping

from referee import GAMES, OptionError, SetupError, Table, get_game
from referee.errors import IllegalEvent
from referee.events import parse_event
from referee.say import say
from referee.table import RefereeBug
from vision.tracker import default_zones

from .errors import Refused
from .hub import Hub
from .session import DECIDING, HISTORY_PAGE, HISTORY_PAGE_MAX, Session
from .store import AnswerRow, ClockState, GameRecord, Stale, Store
from .teach import check_deck

CLOCK_STOPPED = say("The game is over; the clock stays stopped.")

PALETTE = ("#e4572e", "#29335c", "#f3a712", "#669bbc", "#a8c686", "#8e44ad", "#16a085", "#d35400")
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
CLOCK_PUSH_S = 5.0
HISTORY_TAIL = 5      # a pushed view carries only the newest battles; a page keeps the rest
TRIES = 3             # a change tried again when another process's change lands first (GameKeeper.change)


def pushed(view: dict[str, Any]) -> dict[str, Any]:
    """The view as pushed after an event: its history cut to the newest HISTORY_TAIL battles, with
    ``history_start`` (and ``history_from``) saying where they begin in the whole list (the page keeps
    the older ones it has, or pages them). A long Classic War game has hundreds of battles: pushing
    all of them to every viewer after every card would grow each message to hundreds of kilobytes."""
    history = view.get("history") or []
    cut = max(0, len(history) - HISTORY_TAIL)
    start = int(view.get("history_from") or 0) + cut
    return {**view, "history": history[cut:], "history_start": start, "history_from": start}


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


class GameKeeper:
    """The server's keeper of the current game: it loads the game from the store (``Session.load``),
    applies every change to it under ``lock`` and stores it before anything is answered or pushed
    (``hub``), answers a change sent again with its first answer (``once``), follows the other worker
    processes' changes (``sync``, ``change``) and runs the clock (``tick``); it also reads past games.

    Named for what it does, keep the game (it was called ``Referee``, but it rules on nothing: the
    referee is ``referee.Table``, held in its ``Session``). One per app (``app.state.keeper``);
    web/live.py's camera loop and web/demo.py submit events through it too."""

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
        """A stored game, from its latest usable checkpoint (Session.load); what the store lacked or had
        stale (rulings of entries replayed, checkpoints made meanwhile) is stored for next time."""
        session = Session.load(record, self.store.entries(record.id), self.store.checkpoints(record.id))
        session.photos = self.store.photo_seqs(record.id)
        if session.stale_rulings or session.stale_checkpoints or session.unsaved():
            try:
                self.store.save_derived(record.id, session.stale_rulings, session.unsaved(),
                                        session.stale_checkpoints)
                session.saved()
            except Exception as err:  # only an accelerator: the game goes on without it
                print(f"warref: game {record.id}'s checkpoints were not stored: {err!r}")
        session.stale_rulings, session.stale_checkpoints = [], []
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
            raise Refused(404, say("There is no game {game}.", game=game_id))
        self._past = self._load(record)
        return self._past

    def history(self, game_id: int, before: int | None, limit: int | None) -> dict[str, Any]:
        """A page of a game's battles (docs/dashboard-api.md, "History pages")."""
        if limit is None:
            limit = HISTORY_PAGE
        if not 1 <= limit <= HISTORY_PAGE_MAX:
            raise Refused(422, say("limit is how many battles to send, 1 to {most} (got {limit}).", most=HISTORY_PAGE_MAX,
                                   limit=limit))
        if before is not None and before < 1:
            raise Refused(422, say("before is a battle number, 1 or more (got {before}).", before=before))
        return self.game(game_id).history_page(before, limit)

    def need_game(self) -> Session:
        if self.session is None:
            raise Refused(409, say("There is no game yet; set one up first."))
        return self.session

    # -- changing (call under self.lock) ----------------------------------------------------------
    def _settle(self, session: Session) -> tuple[float | None, dict | None, bool]:
        """Bring the record's finished/result (and clock: it stops when the game ends) up to date."""
        record = session.record
        clock_changed = False
        if session.over:
            if record.finished is None:
                record.finished = self.now()
            record.result = session.said_result()       # with its sentence's message: the past games list says it
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
            raise Refused(400, say("Send the new game as a JSON object such as {example}.",
                                   example='{"game": "classic", "players": [...]}'))
        game_id = body.get("game")
        if not isinstance(game_id, str):
            raise Refused(422, say('Say which game to play ("game": one of {games}).', games=", ".join(GAMES)))
        players_in = body.get("players")
        if not isinstance(players_in, list) or not players_in:
            raise Refused(422, say('List the players in seat order ("players": {example}).', example='[{"name": "Alex"}, ...]'))
        players: list[dict[str, str]] = []
        for i, p in enumerate(players_in):
            if isinstance(p, str):
                p = {"name": p}
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                raise Refused(422, say('Player {number} needs a name ("name": "Alex").', number=i + 1))
            colour = p.get("colour")
            if colour is None:
                colour = PALETTE[i % len(PALETTE)]
            if not isinstance(colour, str) or not COLOUR.match(colour):
                raise Refused(422, say("{name}'s colour must be written like #e4572e (got {colour}).", name=p["name"],
                                       colour=repr(colour)))
            players.append({"name": p["name"].strip(), "colour": colour.lower()})
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise Refused(422, say("Give the rule options as an object such as {example}.", example='{"war_down": "3"}'))
        minutes = body.get("clock_minutes")
        length = 0.0
        if minutes is not None:
            length = self._minutes(minutes) * 60
        try:
            game = get_game(game_id)
            table = Table(game, [p["name"] for p in players], options)
        except (SetupError, OptionError) as err:          # its sentence as said (with its message, if any)
            raise Refused(422, err.args[0] if err.args else str(err)) from None
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
            raise Refused(422, say("The clock runs from 1 second to 24 hours: a number of minutes from 1/60 to 1440 "
                                   "(got {value}).", value=repr(value)))
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
                              session.record.clock, rulings=rulings, checkpoints=session.unsaved(),
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
                raise Refused(409, say("The id {id} was already used for another request; send a new id with each "
                                       "change.", id=repr(answer_id)))
            if first.status >= 400:            # refused again, with the first refusal's message
                raise Refused(first.status, str(first.body.get("detail", "")), detail_msg=first.body.get("detail_msg"))
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
                pending.status, pending.body = err.status, err.body()
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
        if not session.in_force:
            raise Refused(409, say("There is nothing to undo."))
        return self.submit({"type": "undo"})

    def correct(self, body: Any) -> dict[str, Any]:
        session = self.need_game()
        if not isinstance(body, dict) or "seq" not in body or "event" not in body:
            raise Refused(400, say('Send a correction as {example} (or "event": null to delete it).',
                                   example='{"seq": 4, "event": {...}}'))
        seq, event = body["seq"], body["event"]
        log = list(session.table.log)
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < len(log):
            raise Refused(422, say("seq must be the index of an entry in the log, 0 to {last} (got {seq}).",
                                   last=len(log) - 1, seq=repr(seq))
                          if log else say("The log is empty; there is nothing to correct."))
        if event is not None and not isinstance(event, dict):
            raise Refused(422, say("The corrected event must be a JSON object such as {example}, or null.",
                                   example='{"type": "flip", ...}'))
        if event is None:
            new_log = log[:seq] + log[seq + 1:]
        else:
            try:
                # Parse it alone first, so a malformed event gets its own sentence.
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
                                   start=seq, rulings=fresh.entry_rulings, checkpoints=fresh.unsaved(),
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
            raise Refused(400, say("Send a clock action as {example} (start, pause, resume, add_minute or set).",
                                   example='{"action": "start"}'))
        action = body["action"]
        clock = ClockState(**vars(session.record.clock))
        now = self.now()
        minutes = body.get("minutes")
        if action == "start":
            if minutes is not None:
                clock.length = self._minutes(minutes) * 60
            if clock.length <= 0:
                raise Refused(409, say("The clock has no length; set it first (\"minutes\": 10)."))
            if session.over:
                raise Refused(409, CLOCK_STOPPED)
            clock.elapsed, clock.started_at, clock.time_up = 0.0, now, False
        elif action == "pause":
            self._pause(clock)
        elif action == "resume":
            if not clock.running:
                if clock.remaining(now) <= 0:
                    raise Refused(409, say("There is no time left on the clock; add a minute or set it again."))
                if session.over:
                    raise Refused(409, CLOCK_STOPPED)
                clock.started_at = now
        elif action == "add_minute":
            if clock.running and clock.remaining(now) <= 0:
                self._pause(clock)
            clock.length += 60
        elif action == "set":
            if minutes is None:
                raise Refused(422, say('Say how long the clock runs ("minutes": 10).'))
            clock.length = self._minutes(minutes) * 60
            clock.elapsed, clock.started_at, clock.time_up = 0.0, None, False
        else:
            raise Refused(422, say("Unknown clock action {action}; the actions are start, pause, resume, "
                                   "add_minute and set.", action=repr(action)))
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
        return {seat: [[float(x), float(y)] for x, y in poly] for seat, poly in default_zones(players).items()}

    def set_zones(self, body: Any) -> dict[str, Any]:
        session = self.need_game()
        if not isinstance(body, dict) or not isinstance(body.get("seats"), dict):
            raise Refused(400, say("Send the zones as {example} (fractions 0..1).",
                                   example='{"seats": {"Alex": [[x, y], ...], ...}}'))
        players = [p["name"] for p in session.record.players]
        given = {session._seat(k): v for k, v in body["seats"].items()}
        unknown = [k for k in given if k not in players]
        if unknown:
            raise Refused(422, say("{seat} is not playing; the seats are {seats}.", seat=unknown[0],
                                   seats=", ".join(players)))
        missing = [p for p in players if p not in given]
        if missing:
            raise Refused(422, say("Draw a zone for every player (missing: {missing}).", missing=", ".join(missing)))
        seats: dict[str, list[list[float]]] = {}
        for seat in players:
            poly = given[seat]
            ok = isinstance(poly, list) and 3 <= len(poly) <= 64 and all(
                isinstance(pt, list) and len(pt) == 2 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= 1
                    for v in pt) for pt in poly)
            if not ok:
                raise Refused(422, say("{seat}'s zone must be 3 to 64 points [x, y], each a fraction of the "
                                       "frame between 0 and 1.", seat=seat))
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
