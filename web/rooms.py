"""Guerra rooms: digital Guerra on phones, with NPCs, the rule document's timers and take-over.

A room is one JSON document in a store (``SQLiteRoomStore`` here, ``web.rooms_redis.RedisRoomStore``
for several server processes): its seats, the seed of its shuffles and the list of moves made. The
game itself is ``referee.digital.DigitalGuerra`` replayed from the seed and the moves, so the
document is the whole truth, and a restart (or another process) gets the same table back.

Every change is a compare-and-swap save of the document (a stale version retries), followed by a
message on the store's channel; each process then pushes fresh views to its own WebSockets. Each
seat's view holds its own hand only (and in Fim de Guerra its partners'); a spectator's none.

Timers are the server's: the document keeps the current decision's deadline and the store indexes
each room's next due time, so a timer survives a restart and fires once across processes (whoever
saves first wins; the others' saves are stale). What is due:
- the decision's deadline: 30 s to answer an Ofensiva or Fim de Guerra (then it is refused), 30 s
  to play a card (then the seat's weakest card is played face up), 30 s for a cut, an abstenção or
  a troca (then none is made); an NPC's decision comes after a short pause instead;
- a player 2 minutes offline: an NPC takes the seat until the player's device comes back.
"""
from __future__ import annotations

import hashlib
import json
import re
import random
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from referee.digital import DigitalGuerra
from referee.errors import IllegalEvent, SetupError
from referee.game import check_name
from referee.games.guerra import OPTIONS as GUERRA_OPTIONS
from referee.npc import LEVELS, Move, make_npc

CODE_LETTERS = "ACDEFHJKMNPRTWXY3479"    # no 0/O, 1/I/L, 2/Z, 5/S, 6/G, 8/B, U/V: easy to read aloud
CODE_LENGTH = 4
ANSWER_S = 30.0           # to answer an Ofensiva, a raise or Fim de Guerra
PLAY_S = 30.0             # to play a card (and to cut, abstain or call a troca)
OFFLINE_S = 120.0         # offline this long and an NPC takes the seat
NPC_PAUSE_S = 1.0         # an NPC's decision comes this long after it is its turn
SEATS = (2, 4, 6)
KEEP_ANSWERS = 64         # answers kept for requests that carried an id
SAVE_TRIES = 20
KEEP_GAMES = 512          # games kept replayed in memory (the least recently used are replayed again)
ALIVE_S = 15.0            # a server process that has not said it is alive for this long is gone
ABANDONED_S = 24 * 3600.0  # nobody connected for this long: the room leaves the lobby's list


class RoomError(Exception):
    """A request the rooms refuse: ``status`` (HTTP) and a sentence for the player."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# ---------------------------------------------------------------------- the default store
class SQLiteRoomStore:
    """Rooms in SQLite (one server process): the document, its version and its next due time.
    ``publish`` calls this process's subscribers at once."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS rooms (
        code TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        doc TEXT NOT NULL,
        due REAL
    );
    CREATE INDEX IF NOT EXISTS rooms_due ON rooms(due);
    """

    def __init__(self, path: str | Path):
        self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(self.SCHEMA)
        self.lock = threading.Lock()
        self.subscribers: list[Callable[[dict], None]] = []

    def create(self, code: str, doc: dict) -> bool:
        with self.lock:
            try:
                self.db.execute("INSERT INTO rooms(code, version, doc, due) VALUES (?, 1, ?, NULL)",
                                (code, json.dumps(doc)))
            except sqlite3.IntegrityError:
                return False
            return True

    def load(self, code: str) -> tuple[int, dict] | None:
        with self.lock:
            row = self.db.execute("SELECT version, doc FROM rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def save(self, code: str, version: int, doc: dict, due: float | None) -> bool:
        with self.lock:
            cur = self.db.execute("UPDATE rooms SET version = version + 1, doc = ?, due = ? "
                                  "WHERE code = ? AND version = ?", (json.dumps(doc), due, code, version))
            return cur.rowcount == 1

    def due(self, now: float) -> list[str]:
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT code FROM rooms WHERE due <= ? ORDER BY due", (now,))]

    def codes(self) -> list[str]:
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT code FROM rooms ORDER BY rowid")]

    def heartbeat(self, process: str, ttl: float) -> None:
        self.process = process

    def alive(self) -> set[str]:
        """One server process uses a SQLite store: the one that last said it is alive."""
        return {self.process} if getattr(self, "process", None) else set()

    def publish(self, message: dict) -> None:
        for callback in list(self.subscribers):
            callback(message)

    def subscribe(self, callback: Callable[[dict], None]) -> None:
        self.subscribers.append(callback)

    def close(self) -> None:
        with self.lock:
            self.db.close()


def open_store(db_path: str | Path, redis_url: str | None = None) -> Any:
    """The rooms' store: SQLite beside the games (one server process), or a Redis several share."""
    if redis_url:
        from .rooms_redis import RedisRoomStore
        return RedisRoomStore(redis_url)
    return SQLiteRoomStore(db_path)


# ---------------------------------------------------------------------- the rooms
class Rooms:
    """Every room of a store, for one server process. Each method loads the room's document, changes
    it, saves it (compare-and-swap, retried when another request or process got there first) and
    publishes ``{"room": code, "version": n}``. ``now`` is the wall clock (a fake one in tests)."""

    def __init__(self, store: Any, now: Callable[[], float] = time.time, npc_pause: float = NPC_PAUSE_S,
                 answer_s: float = ANSWER_S, play_s: float = PLAY_S, offline_s: float = OFFLINE_S):
        self.store = store
        self.now = now
        self.npc_pause, self.answer_s, self.play_s, self.offline_s = npc_pause, answer_s, play_s, offline_s
        self.process = secrets.token_hex(4)      # this process, for the seats' connections
        self.games: OrderedDict[str, tuple[str, DigitalGuerra]] = OrderedDict()   # code -> (seed, game), newest last

    # -- reading ---------------------------------------------------------------------------------
    def load(self, code: str) -> tuple[int, dict]:
        code = str(code).strip().upper()
        found = self.store.load(code) if len(code) == CODE_LENGTH else None
        if found is None:
            raise RoomError(404, f"There is no room {code[:12]!r}: check the code.")
        return found

    def game(self, doc: dict) -> DigitalGuerra | None:
        """The room's game replayed to its last move (kept between calls, replaying only new moves)."""
        if not doc["started"]:
            return None
        code, moves = doc["code"], doc["moves"]
        seed, game = self.games.get(code, (None, None))
        try:
            if game is None or seed != doc["seed"] or len(game.moves_made) > len(moves):
                game = DigitalGuerra([s["name"] for s in doc["seats"]], doc["seed"], doc["options"])
                self.games[code] = (doc["seed"], game)
                while len(self.games) > KEEP_GAMES:
                    self.games.popitem(last=False)
            self.games.move_to_end(code)
            game.replay(moves[len(game.moves_made):])
        except (IllegalEvent, SetupError, KeyError, TypeError) as err:
            self.games.pop(code, None)
            raise RoomError(500, f"Room {code}'s saved moves no longer play ({err}); its record is kept "
                                 "as it is.") from None
        return game

    def seat_of(self, doc: dict, token: str | None) -> int | None:
        """The seat whose device holds ``token`` (None: a spectator)."""
        if not token:
            return None
        d = digest(str(token))
        for i, s in enumerate(doc["seats"]):
            if s.get("token") and secrets.compare_digest(s["token"], d):
                return i
        raise RoomError(403, "This device's seat token is not one of this room's: join the room again.")

    # -- changing ----------------------------------------------------------------------------------
    def change(self, code: str, edit: Callable[[dict, DigitalGuerra | None], Any]) -> Any:
        """Load, ``edit(doc, game)`` (which raises RoomError to refuse), save with the next due time,
        publish. Retries when the document changed meanwhile."""
        for _ in range(SAVE_TRIES):
            version, doc = self.load(code)
            game = self.game(doc)
            try:
                answer = edit(doc, game)
            except Exception:
                self.games.pop(doc["code"], None)       # the edit may have moved the cached game on
                raise
            if isinstance(answer, Unchanged):
                return answer.value
            game = self.game(doc)
            self.schedule(doc, game)
            if self.store.save(doc["code"], version, doc, self.due_of(doc)):
                self.store.publish({"room": doc["code"], "version": version + 1})
                return answer
            self.games.pop(doc["code"], None)
        raise RoomError(503, "The room is too busy right now: try again.")

    def create(self, name: str, players: int = 2, npc_seats: list[int] | None = None, level: str = "normal",
               options: dict[str, Any] | None = None) -> dict[str, Any]:
        """A new room; its creator takes seat 0. ``npc_seats``: the seats NPCs of ``level`` play."""
        name = self.check_name(name)
        if players not in SEATS:
            raise RoomError(422, f"A Guerra room has 2, 4 or 6 seats (teams of 2 or 3), not {players}.")
        if level not in LEVELS:
            raise RoomError(422, f"The NPC level is one of {', '.join(LEVELS)} (got {str(level)[:20]!r}).")
        npc_seats = sorted(set(npc_seats or []))
        if any(not isinstance(i, int) or not 0 < i < players for i in npc_seats):
            raise RoomError(422, f"NPC seats are numbered 1 to {players - 1} (seat 0 is the creator's).")
        options = self.check_options(options or {}, players)
        token = secrets.token_urlsafe(18)
        seats = [{"name": name, "by": "player", "token": digest(token), "online": {}, "offline_since": None,
                  "away": False}]
        for i in range(1, players):
            npc = i in npc_seats
            seats.append({"name": f"NPC {i + 1}" if npc else None, "by": "npc" if npc else "open", "token": None,
                          "online": {}, "offline_since": None, "away": False})
        doc = {"code": "", "created": self.now(), "players": players, "level": level, "options": options,
               "seed": secrets.token_hex(8), "started": False, "seats": seats, "creator": 0, "moves": [],
               "deadline": None, "deadline_set": None, "answers": {}}
        for _ in range(50):
            doc["code"] = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if self.store.create(doc["code"], doc):
                self.store.publish({"room": doc["code"], "version": 1})
                return {"code": doc["code"], "seat": 0, "token": token}
        raise RoomError(503, "No free room code was found: try again.")

    def join(self, code: str, name: str, seat: int | None = None) -> dict[str, Any]:
        """Take an open seat (before the start) or an NPC's seat (any time): a new seat token."""
        name = self.check_name(name)
        token = secrets.token_urlsafe(18)

        def edit(doc, game):
            free = [i for i, s in enumerate(doc["seats"])
                    if s["by"] == "open" or (s["by"] == "npc" and not s["away"])]
            if doc.get("over"):
                raise RoomError(409, "This room's game is over.")
            if not free:
                raise RoomError(409, "Every seat of this room is taken.")
            # by default an open seat before an NPC's (a partner joining lands on an empty chair)
            i = ([k for k in free if doc["seats"][k]["by"] == "open"] or free)[0] if seat is None else seat
            if i not in free:
                raise RoomError(409, f"Seat {i + 1} is not free (free: {', '.join(str(k + 1) for k in free)}).")
            s = doc["seats"][i]
            taken = {x["name"].lower() for k, x in enumerate(doc["seats"]) if x["name"] and k != i}
            if s["by"] == "open" or not doc["started"]:        # the table has no names until the start
                if name.lower() in taken:
                    raise RoomError(409, f"Somebody at this table is already called {name}: pick another name.")
                s["name"], s["player"] = name, None
            else:
                s["player"] = name      # the seat keeps its name at the table; the player shows beside it
            s.update(by="player", token=digest(token), online={}, offline_since=self.now(), away=False)
            return {"code": doc["code"], "seat": i, "token": token}

        return self.change(code, edit)

    def move(self, code: str, token: str, seat: int) -> dict[str, Any]:
        """Before the start, a seated player moves to an open seat (to sit with a partner): the seat,
        its token and its connections go along; the creator stays the creator."""
        def edit(doc, game):
            me = self.seat_of(doc, token)
            if me is None:
                raise RoomError(401, "Only a seated player's device may change seat.")
            if doc["started"]:
                raise RoomError(409, "The game has started: everyone keeps their seat until it is over.")
            if not 0 <= seat < len(doc["seats"]):
                raise RoomError(422, f"This room has seats 1 to {len(doc['seats'])}.")
            if seat == me:
                return Unchanged({"code": doc["code"], "seat": me})
            if doc["seats"][seat]["by"] != "open":
                raise RoomError(409, f"Seat {seat + 1} is not open.")
            doc["seats"][seat], doc["seats"][me] = doc["seats"][me], doc["seats"][seat]
            if doc["creator"] == me:
                doc["creator"] = seat
            return {"code": doc["code"], "seat": seat}

        return self.change(code, edit)

    def start(self, code: str, token: str, fill: bool = False) -> None:
        """The creator starts the game; with ``fill`` open seats get NPCs, else they must be taken."""
        def edit(doc, game):
            if self.seat_of(doc, token) != doc["creator"]:
                raise RoomError(403, "Only the device that created the room starts it.")
            if doc["started"]:
                raise RoomError(409, "The game has already started.")
            open_seats = [i for i, s in enumerate(doc["seats"]) if s["by"] == "open"]
            if open_seats and not fill:
                raise RoomError(409, f"Seat{'s' if len(open_seats) > 1 else ''} "
                                     f"{', '.join(str(i + 1) for i in open_seats)} still empty: wait for "
                                     "the players, or start with NPCs in the empty seats.")
            for i in open_seats:
                doc["seats"][i].update(by="npc", name=f"NPC {i + 1}")
            doc["started"] = True
            doc["started_at"] = self.now()

        self.change(code, edit)

    def again(self, code: str, token: str) -> None:
        """The creator starts a new game at the same table once the game is over (a new shuffle)."""
        def edit(doc, game):
            if self.seat_of(doc, token) != doc["creator"]:
                raise RoomError(403, "Only the device that created the room starts another game.")
            if not doc.get("over"):
                raise RoomError(409, "The game is still being played: another starts when it is over.")
            doc.update(seed=secrets.token_hex(8), moves=[], over=False, deadline=None, deadline_set=None,
                       answers={}, started_at=self.now(), games=doc.get("games", 1) + 1)

        self.change(code, edit)

    def act(self, code: str, token: str, move: dict[str, Any], answer_id: str | None = None) -> dict[str, Any]:
        """A seat's move (its device's token): ``{"rulings": [...], "move": n}`` (the rulings it gave,
        its place in the room's moves). A repeated ``answer_id`` gets the first answer again and
        changes nothing."""
        try:
            m = Move(**{k: v for k, v in dict(move).items()})
        except TypeError as err:
            raise RoomError(422, f"A move is kind, slot, down, parity and choice ({err}).") from None

        def edit(doc, game):
            if answer_id and answer_id in doc["answers"]:
                return Unchanged(doc["answers"][answer_id])
            seat = self.seat_of(doc, token)
            if seat is None:
                raise RoomError(401, "Only a seat's device may play: join the room to get a seat.")
            if game is None:
                raise RoomError(409, "The game has not started yet.")
            name = doc["seats"][seat]["name"]
            if doc["seats"][seat]["by"] != "player":
                raise RoomError(409, f"An NPC is playing {name}'s seat: reconnect to take it back.")
            try:
                before = len(game.rulings)
                game.act(name, m)
            except IllegalEvent as err:
                raise RoomError(409, str(err)) from None
            answer = {"rulings": [r.to_json() for r in game.rulings[before:]], "move": len(doc["moves"])}
            self.record(doc, name, m, "player")
            if answer_id:
                doc["answers"][answer_id] = answer
                while len(doc["answers"]) > KEEP_ANSWERS:
                    doc["answers"].pop(next(iter(doc["answers"])))
            return answer

        return self.change(code, edit)

    def suggest(self, code: str, token: str, move: dict[str, Any]) -> list[str]:
        """A partner's suggestion: shown to the partners of the same team only (not kept)."""
        version, doc = self.load(code)
        seat = self.seat_of(doc, token)
        if seat is None:
            raise RoomError(401, "Only a seat's device may suggest a move to its partners.")
        partners = [s["name"] for i, s in enumerate(doc["seats"]) if i != seat and i % 2 == seat % 2]
        if not partners:
            raise RoomError(409, "Only a team game has partners to suggest a move to.")
        text = describe_move(move)
        self.store.publish({"room": doc["code"], "suggest": {"from": doc["seats"][seat]["name"], "to": partners,
                                                             "move": dict(move), "text": text}})
        return partners

    def connect(self, code: str, seat: int | None, delta: int, token: str | None = None) -> None:
        """A device of ``seat`` connected (``delta`` 1) or went away (-1): an away player is back.
        ``token``: the device's seat token, which finds its seat now (it may have moved since)."""
        if seat is None:
            return

        def edit(doc, game):
            here = seat
            if token:
                try:
                    here = self.seat_of(doc, token)
                except RoomError:                  # the token is no longer this room's
                    return UNCHANGED
                if here is None:
                    return UNCHANGED
            s = doc["seats"][here]
            online = s.setdefault("online", {})
            online[self.process] = max(0, online.get(self.process, 0) + delta)
            if not online[self.process]:
                online.pop(self.process)
            if online:
                s["offline_since"] = None
                if s["away"]:
                    s.update(by="player", away=False)
                    doc["deadline"] = None        # the player's own time again
            elif s["offline_since"] is None:
                s["offline_since"] = self.now()

        self.change(code, edit)

    def forget_dead(self, alive: set[str]) -> int:
        """Forget the connections counted by server processes that are gone (killed, or an earlier
        run of this server): their players count as offline from now. How many rooms changed."""
        changed_rooms = 0
        for code in self.store.codes():
            found = self.store.load(code)
            if found is None or not any(set(s.get("online") or {}) - alive for s in found[1]["seats"]):
                continue

            def edit(doc, game):
                changed = False
                for s in doc["seats"]:
                    dead = set(s.get("online") or {}) - alive
                    for p in dead:
                        s["online"].pop(p)
                        changed = True
                    if dead and not s["online"] and s["offline_since"] is None:
                        s["offline_since"] = self.now()
                return None if changed else UNCHANGED
            self.change(code, edit)
            changed_rooms += 1
        return changed_rooms

    # -- the clock -----------------------------------------------------------------------------------
    def tick(self) -> int:
        """Fire whatever is due: NPC moves, timed-out decisions, NPC take-overs. How many rooms changed."""
        fired = 0
        now = self.now()
        for code in self.store.due(now):
            try:
                if self.change(code, self.fire) is not None:
                    fired += 1
            except RoomError:
                continue
        return fired

    def fire(self, doc: dict, game: DigitalGuerra | None) -> Any:
        now = self.now()
        changed = False
        for s in doc["seats"] if doc["started"] and not doc.get("over") else ():
            if (s["by"] == "player" and s["offline_since"] is not None
                    and now >= s["offline_since"] + self.offline_s):
                s.update(by="npc", away=True)
                doc["deadline"] = None            # an NPC's pause now, not the player's 30 s
                changed = True
        if game is not None and not game.over and doc["deadline"] is not None and now >= doc["deadline"]:
            kind, seats = game.waiting()
            by = {s["name"]: s["by"] for s in doc["seats"]}
            humans = [s for s in seats if by[s] == "player"]
            if humans:
                seat, move, how = humans[0], game.timeout_move(humans[0]), "timer"
            else:
                seat, how = seats[0], "npc"
                npc = make_npc(doc["level"], random.Random(f"{doc['seed']}:{seat}:{len(doc['moves'])}"))
                move = npc.decide(game.view(seat), kind, game.moves(seat))
            game.act(seat, move, timed_out=how == "timer")
            self.record(doc, seat, move, how)
            doc["deadline"] = None
            changed = True
        return True if changed else UNCHANGED

    def schedule(self, doc: dict, game: DigitalGuerra | None) -> None:
        """Set the current decision's deadline when the decision changed (a move was made)."""
        if game is None or game.over:
            doc["deadline"], doc["deadline_set"] = None, None
            doc["over"] = bool(game and game.over)
            return
        key = len(doc["moves"])
        if doc["deadline"] is not None and doc.get("deadline_for") == key:
            return
        kind, seats = game.waiting()
        by = {s["name"]: s["by"] for s in doc["seats"]}
        if any(by[s] == "player" for s in seats):
            wait = self.answer_s if kind in ("answer", "fim") else self.play_s
        else:
            wait = self.npc_pause
        now = self.now()
        doc["deadline"], doc["deadline_set"], doc["deadline_for"] = now + wait, now, key

    def due_of(self, doc: dict) -> float | None:
        times = [s["offline_since"] + self.offline_s for s in doc["seats"]
                 if s["by"] == "player" and s["offline_since"] is not None and doc["started"] and not doc.get("over")]
        if doc["deadline"] is not None:
            times.append(doc["deadline"])
        return min(times) if times else None

    def record(self, doc: dict, seat: str, move: Move, how: str) -> None:
        doc["moves"].append({"seat": seat, "move": move.to_json(),
                             "by": how, "at": self.now()})
        doc["deadline"] = None

    # -- views ----------------------------------------------------------------------------------------
    def view(self, code: str, token: str | None = None, seat: int | None = None) -> dict[str, Any]:
        """What one device may see: its seat's hand and moves; a spectator (no token) the table only."""
        version, doc = self.load(code)
        if seat is None:
            seat = self.seat_of(doc, token)
        return self.view_of(doc, version, seat)

    def view_of(self, doc: dict, version: int, seat: int | None) -> dict[str, Any]:
        game = self.game(doc)
        me = doc["seats"][seat] if seat is not None else None
        room = {
            "code": doc["code"], "players": doc["players"], "level": doc["level"], "started": doc["started"],
            "over": bool(doc.get("over")), "version": version, "moves": len(doc["moves"]), "you": seat,
            "creator": seat is not None and seat == doc["creator"],
            "seats": [{"seat": i, "name": s["name"], "shown": s.get("player") or s["name"], "player": s.get("player"),
                       "by": s["by"], "away": s["away"], "online": bool(s.get("online")), "side": i % 2}
                      for i, s in enumerate(doc["seats"])],
        }
        out: dict[str, Any] = {"type": "view", "room": room, "now": self.now()}
        if game is None:
            return out
        state = game.state
        if me is not None:
            v = game.view(me["name"])
            table = json.loads(json.dumps(asdict(v)))
            moves = game.moves(me["name"]) if me["by"] == "player" else []
            out["moves"] = [{**m.to_json(), "label": describe_move(m.to_json(), list(v.hand))} for m in moves]
        else:
            table = spectator_table(state.public_view())
            out["moves"] = []
        out["table"] = table
        w = game.waiting()
        out["waiting"] = None if w is None else {"kind": w[0], "seats": w[1], "deadline": doc["deadline"],
                                                 "since": doc["deadline_set"],
                                                 "yours": me is not None and me["name"] in w[1]}
        say = shown_names(doc["seats"])
        out["prompt"] = say(state.prompt().text)
        out["rulings"] = [say(r.text) for r in game.rulings[-6:]]
        out["ruling_count"] = len(game.rulings)          # how many rulings so far: which of those are new
        out["result"] = {**state.result, "text": say(state.result["text"])} \
            if isinstance(state.result, dict) and "text" in state.result else state.result
        out["dealt"] = bool(game.dealt)                 # this confronto's cards are in the hands
        out["scores"] = list(state.scores)
        out["side_names"] = [say(n) for n in state.side_names]
        return out

    def abandoned(self, doc: dict) -> bool:
        """Nobody has been connected to the room for ``ABANDONED_S`` (24 h): it leaves the lobby's list
        (its seats still open by its code, and its record is kept)."""
        people = [s for s in doc["seats"] if s["by"] == "player" or s.get("away")]
        if any(s.get("online") for s in people):
            return False
        last = max([doc["created"]] + [m.get("at", 0) for m in doc["moves"][-1:]]
                   + [s["offline_since"] for s in people if s.get("offline_since") is not None])
        return self.now() - last >= ABANDONED_S

    def listing(self) -> list[dict[str, Any]]:
        """Rooms a newcomer may join: not started with an open seat, or not over with an NPC's seat."""
        out = []
        for code in self.store.codes():
            found = self.store.load(code)
            if found is None:
                continue
            _, doc = found
            if doc.get("over") or self.abandoned(doc):
                continue
            free = [i for i, s in enumerate(doc["seats"])
                    if (s["by"] == "open" and not doc["started"]) or (s["by"] == "npc" and not s["away"])]
            if free:
                out.append({"code": code, "players": doc["players"], "started": doc["started"], "free": free,
                            "seats": [s["name"] or "(open)" for s in doc["seats"]], "created": doc["created"]})
        return out

    # -- checking ---------------------------------------------------------------------------------------
    @staticmethod
    def check_name(name: Any) -> str:
        if not isinstance(name, str):
            raise RoomError(422, "A player's name is text.")
        try:
            return check_name(name.strip())
        except SetupError as err:
            raise RoomError(422, str(err)) from None

    @staticmethod
    def check_options(options: dict[str, Any], players: int) -> dict[str, Any]:
        known = {o.name: o for o in GUERRA_OPTIONS}
        for k, v in options.items():
            if k not in known:
                raise RoomError(422, f"Guerra has no option {str(k)[:30]!r} (it has {', '.join(known)}).")
        try:
            DigitalGuerra([f"P{i + 1}" for i in range(players)], 0, options)
        except SetupError as err:
            raise RoomError(422, str(err)) from None
        return dict(options)


def shown_names(seats: list[dict]) -> Any:
    """What the table's words call each seat: a player who took over an NPC mid-game plays under the
    seat's name at the referee (``NPC 2``), but everything a person reads names the player (``Nina``).
    Returns a function of a text."""
    taken = {s["name"]: s["player"] for s in seats if s.get("player") and s.get("name")}
    if not taken:
        return lambda text: text
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in sorted(taken, key=len, reverse=True)) + r")(?!\w)")
    return lambda text: pattern.sub(lambda m: taken[m.group(1)], text)


class Unchanged:
    """What an edit returns when it changes nothing (no save, no message): ``value`` is the answer."""

    def __init__(self, value: Any = None):
        self.value = value


UNCHANGED = Unchanged()


def spectator_table(public: dict[str, Any]) -> dict[str, Any]:
    """The referee's public view in the shape of a seat's view (referee.npc.SeatView), no hand."""
    table = {k: v for k, v in public.items() if k != "deck"}
    table["counts"] = [[s, n] for s, n in public["counts"].items()]
    table["known"] = [[s, list(c)] for s, c in sorted(public["known"].items())]
    pending = public["pending"]
    table["pending"] = [pending["side"], pending["value"]] if pending else None
    return table


def describe_move(move: dict[str, Any], hand: list[str] | None = None) -> str:
    """A move in words for a button or a suggestion: 'Play 7C face up', 'Raise', 'Call even'."""
    kind = move.get("kind")
    if kind == "flip":
        slot = move.get("slot")
        card = hand[slot] if hand is not None and slot is not None and slot < len(hand) and hand[slot] else f"card {(slot or 0) + 1}"
        return f"Play {card} face down" if move.get("down") else f"Play {card} face up"
    if kind == "call":
        return f"Troca: call {move.get('parity')}"
    if kind == "cut":
        return f"Cut {move.get('choice')}"
    if kind == "pass":
        return "Pass"
    return str(kind).capitalize()
