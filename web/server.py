"""`warref serve`: the tablet dashboard's API and WebSocket (docs/dashboard-api.md).

One referee Table for the current game lives in memory; the SQLite store (web/store.py) holds every
accepted log entry and the clock, committed before anything is answered or pushed. Every change to
the referee or the clock happens under one asyncio lock, synchronously on the event loop, so
concurrent requests are applied one at a time and each push goes out in the order of the changes.
"""
from __future__ import annotations

import asyncio
import contextlib
import hmac
import io
import json
import math
import re
import time
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import HTTPException, RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from referee import GAMES, OptionError, SetupError, Table, get_game
from referee.errors import IllegalEvent
from referee.table import RefereeBug

from .store import ClockState, GameRecord, Store

MAX_BODY = 64 * 1024
PIN_SENTENCE = "This needs the table's PIN (shown on the server's console)."
STATIC = Path(__file__).parent / "static"
PALETTE = ("#e4572e", "#29335c", "#f3a712", "#669bbc", "#a8c686", "#8e44ad", "#16a085", "#d35400")
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
CLOCK_PUSH_S = 5.0
NO_CAMERA = {"status": "off", "source": None, "fps": 0.0, "frame": None,
             "message": "No camera is attached (start warref run or warref demo)."}
HISTORY_TAIL = 5      # a pushed view carries only the newest battles; a page keeps the rest


def pushed(view: dict[str, Any]) -> dict[str, Any]:
    """The view as pushed after an event: its history cut to the newest HISTORY_TAIL battles, with
    ``history_start`` saying where they begin (the page keeps the older ones, or asks /api/state).
    A long Classic War game has hundreds of battles: pushing all of them to every viewer after every
    card would grow each message to hundreds of kilobytes."""
    history = view.get("history") or []
    start = max(0, len(history) - HISTORY_TAIL)
    return {**view, "history": history[start:], "history_start": start}


class Refused(Exception):
    """A request the server turns down with a status and one sentence."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


# ----------------------------------------------------------------------------------- one game
class Session:
    """A game being refereed: the Table, the rulings each log entry gave, and which entries are in
    force (undo entries take back the entry before them)."""

    def __init__(self, record: GameRecord):
        self.record = record
        self.table = Table(record.game, [p["name"] for p in record.players], record.options)
        self.entry_rulings: list[list[dict[str, Any]]] = []   # per log index
        self.effective: list[int] = []                        # log indexes in force, in order
        self.last: list[dict[str, Any]] = [self.table.state.prompt().to_json()]
        self.photos: set[int] = set()                         # log indexes with a stored battle photo

    @classmethod
    def replay(cls, record: GameRecord, log: list[Mapping[str, Any]]) -> "Session":
        """Raises Refused(409) naming the first entry that no longer plays."""
        session = cls(record)
        for i, entry in enumerate(log):
            try:
                session.submit(entry)
            except IllegalEvent as err:
                raise Refused(409, f"The log no longer plays from entry {i}: {err.message}") from None
            except RefereeBug as err:
                raise Refused(409, f"The log no longer plays from entry {i}: {err}") from None
        return session

    def submit(self, obj: Any) -> list[dict[str, Any]]:
        """Apply one event (IllegalEvent if refused; nothing changes then)."""
        seq = len(self.table.log)
        rulings = [r.to_json() for r in self.table.submit(obj)]
        self.entry_rulings.append(rulings)
        if self.table.log[seq].get("type") == "undo":
            self.effective.pop()
        else:
            self.effective.append(seq)
        self.last = rulings
        return rulings

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

    def history(self) -> list[dict[str, Any]]:
        history: list[dict[str, Any]] = []
        pending: list[dict[str, Any]] = []
        cards: dict[str, str] = {}
        card_seq: dict[str, int] = {}
        turned: dict[str, list[str]] = {}
        for seq in self.effective:
            entry = self.table.log[seq]
            flipped: dict[str, str] = {}
            if entry.get("type") == "flip":
                flipped = {entry["seat"]: entry["card"]}
            elif entry.get("type") == "flips":
                flipped = dict(entry["cards"])
            for seat, card in flipped.items():
                seat = self._seat(seat)
                cards[seat] = card
                card_seq[seat] = seq
                turned.setdefault(seat, []).append(card)
            decided = None
            for r in self.entry_rulings[seq]:
                if r["type"] == "prompt":
                    continue
                if r["type"] == "battle":
                    decided = {"seq": seq, "battle": len(history) + 1, "text": r["text"], "cards": dict(cards),
                               "card_seq": dict(card_seq), "turned": {s: list(c) for s, c in turned.items()}, "rulings": pending + [r],
                               "photo": (f"/api/photos/{self.record.id}/{seq}.jpg"
                                         if seq in self.photos else None)}
                    history.append(decided)
                    pending = []
                elif decided is not None:
                    decided["rulings"].append(r)
                else:
                    pending.append(r)
            if decided is not None:
                cards, card_seq, turned = {}, {}, {}
        return history

    def view(self, clock: dict[str, Any]) -> dict[str, Any]:
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
        return {
            "game_id": self.record.id, "game": self.table.game.id, "name": self.table.game.name,
            "players": players, "options": self.table.options,
            "rule_sheet": self.table.game.rule_sheet(self.table.options),
            "prompt": prompt,
            "pile": len(getattr(state, "middle", []) or []) + int(getattr(state, "carried", 0) or 0),
            "over": self.over, "result": self.result,
            "last": self.last, "history": self.history(), "log_length": len(self.table.log),
            "created": self.record.created, "finished": self.record.finished,
            "deck": self.record.deck,
            "clock": clock,
        }


def _strip_seq(ruling: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ruling.items() if k != "seq"}


def changed_rulings(old: list[list[dict]], new: list[list[dict]], seq: int, deleted: bool) -> list[dict]:
    """The rulings of the corrected log that differ from those the old log gave at the same place."""
    out = []
    for j, rulings in enumerate(new):
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

    def add(self, viewer: Viewer, first: str) -> None:
        viewer.queue.put_nowait(first)
        self.viewers.add(viewer)

    def remove(self, viewer: Viewer) -> None:
        self.viewers.discard(viewer)

    def broadcast(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, ensure_ascii=False)
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
        current = store.current_id()
        if current is not None:
            record = store.game(current)
            if record is not None:
                self.session = self._with_photos(Session.replay(record, store.log(current)))

    def _with_photos(self, session: Session) -> Session:
        session.photos = self.store.photo_seqs(session.record.id)
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
        if self.session is not None and self.session.record.id == game_id:
            return self.view()
        record = self.store.game(game_id)
        if record is None:
            raise Refused(404, f"There is no game {game_id}.")
        session = self._with_photos(Session.replay(record, self.store.log(game_id)))
        clock = record.clock.to_json(self.now())
        return session.view(clock)

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
        new_id = self.store.new_game(game.id, players, options_in_force, created, length, deck)
        record = self.store.game(new_id)
        assert record is not None
        self.session = Session(record)
        view = self.view()
        self.hub.broadcast({"type": "setup", "view": view})
        return view

    @staticmethod
    def _minutes(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0 < value <= 24 * 60:
            raise Refused(422, f"The clock takes a number of minutes between 0 and 1440 (got {value!r}).")
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
        if photo is not None and any(r.get("type") == "battle" for r in rulings):
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
        try:
            self.store.append(session.record.id, seq, session.table.log[seq], finished, result,
                              session.record.clock)
        except Exception:
            # Not stored: go back to what the store holds, so memory never runs ahead of the disk.
            self._reload()
            raise
        if clock_changed:
            self.hub.broadcast({"type": "clock", "clock": self.clock_json()})

    def _reload(self) -> None:
        current = self.store.current_id()
        record = self.store.game(current) if current is not None else None
        self.session = self._with_photos(Session.replay(record, self.store.log(record.id))) if record else None

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
        fresh = Session.replay(session.record, new_log)
        fresh.record = session.record
        fresh.photos = set(session.photos)
        changed = changed_rulings(session.entry_rulings, fresh.entry_rulings, seq, event is None)
        old_state = (session.record.finished, session.record.result, ClockState(**vars(session.record.clock)))
        finished, result, clock_changed = self._settle(fresh)
        try:
            self.store.replace_log(session.record.id, fresh.table.log, finished, result, session.record.clock)
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
        self.store.save_clock(session.record.id, clock)
        session.record.clock = clock
        self.last_clock_push = now
        answer = self.clock_json()
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


def lan_ip() -> str:
    """This machine's LAN address, found without sending anything (a UDP socket's connect only picks
    the route); 127.0.0.1 when there is no network."""
    import socket
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 1))
            ip = s.getsockname()[0]
            return ip if ip and not ip.startswith("0.") else "127.0.0.1"
    except OSError:
        return "127.0.0.1"


def create_app(db_path: str | Path, pin: str, *, public_url: str | None = None,
               now: Callable[[], float] = time.time, tick_s: float = 0.25,
               static_dir: str | Path | None = None, live: Any = None) -> FastAPI:
    """The dashboard app. ``now`` is the wall clock (injectable for tests); ``tick_s`` how often the
    background task looks at the clock; ``public_url`` the address shown on /api/address. ``live``
    (web/live.py's Live: a camera or the demo's feed) is run as a background task while the app runs."""
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
                        referee.tick()
                except Exception as err:  # never let the clock task die
                    print(f"warref serve: clock tick failed: {err!r}")

        task = asyncio.create_task(ticker())
        camera = asyncio.create_task(live.run(referee)) if live is not None else None
        try:
            yield
        finally:
            teaching.stop(wait=2.0)
            if live is not None:
                live.stop()
            for t in (task, camera):
                if t is None:
                    continue
                t.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
            for viewer in list(referee.hub.viewers):
                with contextlib.suppress(asyncio.QueueFull):
                    viewer.queue.put_nowait(None)

    app = FastAPI(title="warref dashboard", lifespan=lifespan,
                  description="The tablet dashboard's API: see docs/dashboard-api.md.")
    app.state.referee = referee
    app.state.store = store
    app.state.live = live
    app.state.teaching = teaching
    app.add_middleware(BodyLimit, larger=(("/api/teach/", teach.PHOTO_LIMIT),))

    @app.exception_handler(Refused)
    async def refused(request: Request, err: Refused) -> JSONResponse:
        return JSONResponse({"detail": err.detail}, status_code=err.status)

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

    def check_pin(request: Request) -> None:
        given = request.headers.get("x-warref-pin", "")
        if not hmac.compare_digest(given.strip().encode(), pin.encode()):
            raise Refused(401, PIN_SENTENCE)

    async def json_body(request: Request) -> Any:
        raw = await request.body()
        if not raw.strip():
            raise Refused(400, "The request needs a JSON body.")
        try:
            return json.loads(raw, parse_constant=_no_constant)
        except ValueError as err:
            if not isinstance(err, (json.JSONDecodeError, UnicodeDecodeError)):
                raise Refused(400, str(err)) from None
            msg = f" ({err.msg} at line {err.lineno}, column {err.colno})" if isinstance(err, json.JSONDecodeError) else ""
            raise Refused(400, f"The request body is not JSON{msg}.") from None

    # -- reading ---------------------------------------------------------------------------------
    @app.get("/api/catalog")
    async def catalog() -> list[dict[str, Any]]:
        return [{"id": g.id, "name": g.name, "min_players": g.min_players, "max_players": g.max_players,
                 "cards": g.cards_in_play(g.resolve_options(None)),
                 "options": [{"name": o.name, "default": o.default, "help": o.help, "kind": o.kind,
                              "choices": list(o.choices), "choice_help": dict(o.choice_help or {}),
                              "can_be_off": o.can_be_off, "minimum": o.minimum} for o in g.options]}
                for g in GAMES.values()]

    @app.get("/api/state")
    async def state() -> dict[str, Any]:
        return referee.view()

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return [{"id": r.id, "game": r.game, "name": GAMES[r.game].name if r.game in GAMES else r.game,
                 "players": r.players, "created": r.created, "finished": r.finished, "result": r.result,
                 "current": referee.session is not None and referee.session.record.id == r.id}
                for r in store.games()]

    @app.get("/api/games/{game_id}")
    async def one_game(game_id: int) -> dict[str, Any]:
        return referee.game_view(game_id)

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
    @app.post("/api/games")
    async def new_game(request: Request) -> dict[str, Any]:
        check_pin(request)
        body = await json_body(request)
        async with referee.lock:
            return referee.new_game(body)

    @app.post("/api/events")
    async def events(request: Request) -> dict[str, Any]:
        check_pin(request)
        body = await json_body(request)
        if not isinstance(body, dict):
            raise Refused(400, 'An event must be a JSON object such as {"type": "flip", "seat": "Alex", "card": "8S"}.')
        async with referee.lock:
            return referee.submit(body)

    @app.post("/api/undo")
    async def undo(request: Request) -> dict[str, Any]:
        check_pin(request)
        async with referee.lock:
            return referee.undo()

    @app.post("/api/corrections")
    async def corrections(request: Request) -> dict[str, Any]:
        check_pin(request)
        body = await json_body(request)
        async with referee.lock:
            return referee.correct(body)

    @app.post("/api/clock")
    async def clock(request: Request) -> dict[str, Any]:
        check_pin(request)
        body = await json_body(request)
        async with referee.lock:
            return referee.clock_action(body)

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
        return {"seats": referee.zones()}

    @app.put("/api/zones")
    async def put_zones(request: Request) -> dict[str, Any]:
        check_pin(request)
        body = await json_body(request)
        async with referee.lock:
            seats = referee.set_zones(body)
        if live is not None:
            live.zones_changed(seats)
        return {"seats": seats}

    @app.get("/api/photos/{game_id}/{name}")
    async def photo(game_id: int, name: str) -> Response:
        m = re.fullmatch(r"(\d+)\.jpg", name)
        jpeg = store.photo(game_id, int(m.group(1))) if m else None
        if jpeg is None:
            raise Refused(404, f"There is no photo {name} for game {game_id}.")
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "public, max-age=86400"})

    # -- teaching a deck (web/teach.py; docs/dashboard-api.md, "Teaching a deck") -----------------------
    @app.get("/api/decks")
    async def get_decks() -> dict[str, Any]:
        return await asyncio.to_thread(teaching.decks_json)

    @app.post("/api/teach")
    async def teach_start(request: Request) -> dict[str, Any]:
        check_pin(request)
        return teaching.start(await json_body(request))

    @app.get("/api/teach/{name}")
    async def teach_view(name: str) -> dict[str, Any]:
        return teaching.view(name)

    @app.delete("/api/teach/{name}")
    async def teach_drop(request: Request, name: str) -> dict[str, Any]:
        check_pin(request)
        return teaching.drop(name)

    @app.put("/api/teach/{name}/cards/{code}")
    async def teach_card(request: Request, name: str, code: str) -> dict[str, Any]:
        check_pin(request)
        return await teaching.upload(name, code, await request.body(), request.query_params.get("file"))

    @app.put("/api/teach/{name}/photos/{filename}")
    async def teach_photo(request: Request, name: str, filename: str) -> dict[str, Any]:
        check_pin(request)
        return await teaching.upload_named(name, filename, await request.body())

    @app.post("/api/teach/{name}/cards/{code}/take")
    async def teach_take(request: Request, name: str, code: str) -> dict[str, Any]:
        check_pin(request)
        return await teaching.take(name, code)

    @app.get("/api/teach/{name}/cards/{file}")
    async def teach_card_png(request: Request, name: str, file: str) -> Response:
        m = re.fullmatch(r"([A-Za-z0-9]+)\.png", file)
        if m is None:
            raise Refused(404, f"There is nothing at /api/teach/{name}/cards/{file} (cards are CODE.png).")
        width = request.query_params.get("w", "")
        png = await asyncio.to_thread(teaching.card_png, name, m.group(1), int(width) if width.isdigit() else None)
        # a URL with ?v= (the picture's time) names one picture for good; without it, the newest
        cache = "private, max-age=86400" if request.query_params.get("v") else "no-store"
        return Response(png, media_type="image/png", headers={"Cache-Control": cache})

    @app.post("/api/teach/{name}/train")
    async def teach_train(request: Request, name: str) -> dict[str, Any]:
        check_pin(request)
        raw = await request.body()
        return teaching.train(name, await json_body(request) if raw.strip() else None)

    # -- pushing ---------------------------------------------------------------------------------
    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        host = websocket.headers.get("host", "")
        if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            await websocket.close(code=1008, reason="This dashboard only talks to its own pages.")
            return
        await websocket.accept()
        viewer = Viewer(websocket)
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


def _no_constant(name: str) -> Any:
    raise ValueError(f"The request body is not plain JSON ({name} is not a number JSON knows).")


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what a viewer sends, until it goes away."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
