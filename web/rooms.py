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

The store also indexes which rooms somebody is connected to (the clock's look at dead processes'
connections reads those only), when each of the others expires (24 h after the last sign of anybody:
the clock deletes it and its code is free), and which rooms the lobby lists (read a page at a time).
It keeps the token buckets of the limits on making, joining and guessing rooms (``LIMITS``), so all
processes share them and a restart keeps them.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import random
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from referee import names
from referee.digital import DigitalGuerra
from referee.errors import IllegalEvent, SetupError
from referee.games.guerra import OPTIONS as GUERRA_OPTIONS
from referee.npc import LEVELS, Move, make_npc
from referee.npc.coach import advise
from referee.say import message, say, say_n, to_translate

from .guard import client_key, wait_words

CODE_LETTERS = "ACDEFHJKMNPRTWXY3479"    # no 0/O, 1/I/L, 2/Z, 5/S, 6/G, 8/B, U/V: easy to read aloud
CODE_LENGTH = 6           # 20**6 = 64 million codes: guessing a live one takes longer than it lives
OLD_CODE_LENGTHS = (4,)   # rooms made before codes were 6 long still open by their codes
ANSWER_S = 30.0           # to answer an Ofensiva, a raise or Fim de Guerra
PLAY_S = 30.0             # to play a card (and to cut, abstain or call a troca)
OFFLINE_S = 120.0         # offline this long and an NPC takes the seat
NPC_PAUSE_S = 1.0         # an NPC's decision comes this long after it is its turn
SEATS = (2, 4, 6)
KEEP_ANSWERS = 64         # answers kept for requests that carried an id
SAVE_TRIES = 20
KEEP_GAMES = 512          # games kept replayed in memory (the least recently used are replayed again)
ALIVE_S = 15.0            # a server process that has not said it is alive for this long is gone
ABANDONED_S = 24 * 3600.0  # nobody connected for this long: the room is deleted (its code is free again)
KEEP_JOINS_S = 3600.0     # a join or a create that carried an id is answered again for this long
LOBBY_PAGE = 20           # rooms on one page of the lobby's list (at most LOBBY_MAX)
LOBBY_MAX = 50
NPC_NAMES = [f"NPC {i}" for i in range(1, 7)]   # what the table calls the NPC in seat i: no player's name


@dataclass(frozen=True)
class Limit:
    """A token bucket: ``burst`` at once, then one every ``every`` seconds. ``says`` is the refusal's
    sentence, with ``{wait}`` for how long to wait."""
    burst: int
    every: float
    says: str


# Room requests allowed, per client address (an IPv6 address by its /64) and for everyone together. The
# buckets live in the rooms' store, so every server process shares them and a restart keeps them.
LIMITS = {
    "create": Limit(10, 60.0, to_translate("This device has made many rooms in a short time: wait {wait} before "
                                           "making another.")),
    "create-all": Limit(100, 6.0, to_translate("Many rooms have been made on this server in a short time: wait "
                                               "{wait} before making another.")),
    "join": Limit(20, 15.0, to_translate("This device has joined many rooms in a short time: wait {wait} before "
                                         "joining another.")),
    "miss": Limit(20, 30.0, to_translate("This device has tried many room codes that do not exist: wait {wait}, "
                                         "then check the code on the creator's screen.")),
    "suggest": Limit(3, 2.0, to_translate("One suggestion at a time: wait {wait} before suggesting another move.")),
    "hint": Limit(3, 3.0, to_translate("One hint at a time: wait {wait} before asking the coach again.")),
}


class RoomError(Exception):
    """A request the rooms refuse: ``status`` (HTTP) and a sentence for the player (and ``headers``,
    such as a 429's Retry-After)."""

    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers or {}

    def answer(self) -> dict[str, Any]:
        """The refusal as a device gets it: ``detail`` (English) and, for a sentence made with
        ``say``, ``detail_msg``, its message, which a page renders in its own language."""
        found = message(self.detail)
        return {"detail": str(self.detail), **({"detail_msg": shown_message([])(found)} if found else {})}


class NoRoom(RoomError):
    """No room has that code (a 404 that counts as a guess against the client's ``miss`` limit)."""


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
    CREATE TABLE IF NOT EXISTS room_buckets (key TEXT PRIMARY KEY, tokens REAL NOT NULL, at REAL NOT NULL,
                                             full_at REAL NOT NULL);
    CREATE TABLE IF NOT EXISTS room_once (key TEXT PRIMARY KEY, answer TEXT NOT NULL, until REAL NOT NULL);
    """
    # a room's indexes: when it expires (NULL: somebody is connected), whether the lobby lists it
    # (NULL: not indexed yet, a room saved before the indexes were kept); the lobby's order is the rowid
    INDEXES = (("expires", "REAL"), ("listed", "INTEGER"))

    def __init__(self, path: str | Path):
        self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(self.SCHEMA)
        have = {r[1] for r in self.db.execute("PRAGMA table_info(rooms)")}
        for column, kind in self.INDEXES:
            if column not in have:
                self.db.execute(f"ALTER TABLE rooms ADD COLUMN {column} {kind}")
        self.db.execute("CREATE INDEX IF NOT EXISTS rooms_expires ON rooms(expires)")
        self.db.execute("CREATE INDEX IF NOT EXISTS rooms_listed ON rooms(listed)")
        self.lock = threading.Lock()
        self.subscribers: list[Callable[[dict], None]] = []

    def create(self, code: str, doc: dict, index: dict | None = None,
               once: tuple[str, dict, float, float] | None = None) -> bool | dict:
        """Store ``doc`` as version 1 of room ``code``: True, or False if the code is taken. ``index``:
        ``{"expires", "listed"}``. ``once``: (key, answer, now, seconds): the answer is kept under key
        with the room, and if the key already holds one, that answer is returned and nothing made."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                if once is not None:
                    row = self.db.execute("SELECT answer FROM room_once WHERE key = ? AND until > ?",
                                          (once[0], once[2])).fetchone()
                    if row is not None:
                        self.db.execute("ROLLBACK")
                        return json.loads(row[0])
                try:
                    self.db.execute("INSERT INTO rooms(code, version, doc, due, expires, listed) VALUES (?, 1, ?, NULL, ?, ?)",
                                    (code, json.dumps(doc), None if index is None else index["expires"],
                                     None if index is None else int(bool(index["listed"]))))
                except sqlite3.IntegrityError:
                    self.db.execute("ROLLBACK")
                    return False
                if once is not None:
                    self.db.execute("INSERT OR REPLACE INTO room_once(key, answer, until) VALUES (?, ?, ?)",
                                    (once[0], json.dumps(once[1]), once[2] + once[3]))
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            return True

    def recall(self, key: str, now: float) -> dict | None:
        """The answer ``create`` kept under ``key`` (None: none, or too old)."""
        with self.lock:
            row = self.db.execute("SELECT answer FROM room_once WHERE key = ? AND until > ?", (key, now)).fetchone()
        return None if row is None else json.loads(row[0])

    def load(self, code: str) -> tuple[int, dict] | None:
        with self.lock:
            row = self.db.execute("SELECT version, doc FROM rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def save(self, code: str, version: int, doc: dict, due: float | None, index: dict | None = None) -> bool:
        """Compare-and-swap; ``index`` (``{"expires", "listed"}``) updates the room's indexes too."""
        with self.lock:
            if index is None:
                cur = self.db.execute("UPDATE rooms SET version = version + 1, doc = ?, due = ? "
                                      "WHERE code = ? AND version = ?", (json.dumps(doc), due, code, version))
            else:
                cur = self.db.execute("UPDATE rooms SET version = version + 1, doc = ?, due = ?, expires = ?, "
                                      "listed = ? WHERE code = ? AND version = ?",
                                      (json.dumps(doc), due, index["expires"], int(bool(index["listed"])),
                                       code, version))
            return cur.rowcount == 1

    def delete(self, code: str, version: int) -> bool:
        """Delete the room if it is still at ``version`` (its code is free again)."""
        with self.lock:
            return self.db.execute("DELETE FROM rooms WHERE code = ? AND version = ?", (code, version)).rowcount == 1

    def expired(self, now: float, limit: int = 200) -> list[str]:
        """Rooms whose expiry time (nobody connected) is <= ``now``."""
        with self.lock:
            return [r[0] for r in self.db.execute(
                "SELECT code FROM rooms WHERE expires <= ? ORDER BY expires LIMIT ?", (now, limit))]

    def online(self) -> list[str]:
        """Rooms that somebody may be connected to (or not indexed yet): those without an expiry."""
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT code FROM rooms WHERE expires IS NULL")]

    def unindexed(self) -> list[str]:
        """Rooms saved before the indexes were kept."""
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT code FROM rooms WHERE listed IS NULL")]

    def lobby(self, limit: int, after: int | None = None) -> list[tuple[int, str]]:
        """The rooms the lobby lists, newest first: (cursor, code), after ``after`` (a cursor)."""
        with self.lock:
            return [(r[0], r[1]) for r in self.db.execute(
                "SELECT rowid, code FROM rooms WHERE listed = 1 AND rowid < ? ORDER BY rowid DESC LIMIT ?",
                (after if after is not None else 2 ** 62, limit))]

    def take(self, key: str, burst: float, every: float, now: float, cost: float = 1.0) -> float:
        """A token bucket: 0 if ``key``'s bucket holds a token (``cost`` of them taken), else the
        seconds until it does (nothing taken)."""
        with self.lock:
            row = self.db.execute("SELECT tokens, at FROM room_buckets WHERE key = ?", (key,)).fetchone()
            tokens = burst if row is None else min(burst, row[0] + max(0.0, now - row[1]) / every)
            if tokens < 1:
                return (1 - tokens) * every
            if cost:
                tokens -= cost
                self.db.execute("INSERT OR REPLACE INTO room_buckets(key, tokens, at, full_at) VALUES (?, ?, ?, ?)",
                                (key, tokens, now, now + (burst - tokens) * every))
            return 0.0

    def prune(self, now: float) -> None:
        """Forget full buckets and answers kept too long."""
        with self.lock:
            self.db.execute("DELETE FROM room_buckets WHERE full_at <= ?", (now,))
            self.db.execute("DELETE FROM room_once WHERE until <= ?", (now,))

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
        from .rooms_redis import RedisRoomStore     # redis (about 0.1 s to import): only with --redis
        return RedisRoomStore(redis_url)
    return SQLiteRoomStore(db_path)


# ---------------------------------------------------------------------- the rooms
class Rooms:
    """Every room of a store, for one server process. Each method loads the room's document, changes
    it, saves it (compare-and-swap, retried when another request or process got there first) and
    publishes ``{"room": code, "version": n}``. ``now`` is the wall clock (a fake one in tests)."""

    def __init__(self, store: Any, now: Callable[[], float] = time.time, npc_pause: float = NPC_PAUSE_S,
                 answer_s: float = ANSWER_S, play_s: float = PLAY_S, offline_s: float = OFFLINE_S,
                 limits: dict[str, Limit] | None = None):
        self.store = store
        self.now = now
        self.npc_pause, self.answer_s, self.play_s, self.offline_s = npc_pause, answer_s, play_s, offline_s
        self.limits = dict(LIMITS if limits is None else limits)
        self.process = secrets.token_hex(4)      # this process, for the seats' connections
        self.games: OrderedDict[str, tuple[str, DigitalGuerra]] = OrderedDict()   # code -> (seed, game), newest last
        self.reindex()

    def reindex(self) -> int:
        """Index the rooms saved before their indexes (expiry, the lobby's list) were kept: each is
        saved once. How many."""
        done = 0
        for code in self.store.unindexed():
            try:
                self.change(code, lambda doc, game: None)
                done += 1
            except RoomError:                      # a room whose moves no longer play stays as it is
                continue
        return done

    # -- limits ----------------------------------------------------------------------------------
    def limit(self, kind: str, who: str, cost: float = 1.0) -> None:
        """Take one of ``who``'s ``kind`` requests (``cost`` 0: only look): RoomError 429 with a
        sentence and Retry-After when its bucket is empty."""
        rule = self.limits.get(kind)
        if rule is None:
            return
        wait = self.store.take(f"{kind}:{who}", rule.burst, rule.every, self.now(), cost)
        if wait > 0:
            raise RoomError(429, say(rule.says, wait=wait_words(wait)), {"Retry-After": str(math.ceil(wait))})

    def guessing(self, client: str | None) -> None:
        """Before a request that names a room's code: 429 if ``client`` has tried too many unknown codes."""
        if client is not None:
            self.limit("miss", client_key(client), cost=0)

    def missed(self, client: str | None) -> None:
        """``client`` named a code no room has: one try of its ``miss`` allowance."""
        if client is not None:
            try:
                self.limit("miss", client_key(client))
            except RoomError:
                pass

    # -- reading ---------------------------------------------------------------------------------
    def load(self, code: str) -> tuple[int, dict]:
        code = str(code).strip().upper()
        found = self.store.load(code) if len(code) in (CODE_LENGTH, *OLD_CODE_LENGTHS) else None
        if found is None:
            raise NoRoom(404, f"There is no room {code[:12]!r}: check the code.")
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
            raise RoomError(500, say("Room {code}'s saved moves no longer play ({why}); its record is kept "
                                     "as it is.", code=code, why=str(err))) from None
        return game

    def seat_of(self, doc: dict, token: str | None) -> int | None:
        """The seat whose device holds ``token`` (None: a spectator)."""
        if not token:
            return None
        d = digest(str(token))
        for i, s in enumerate(doc["seats"]):
            if s.get("token") and secrets.compare_digest(s["token"], d):
                return i
        raise RoomError(403, say("This device's seat token is not one of this room's: join the room again."))

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
            joins = doc.get("joins") or {}
            if any(self.now() - j["at"] >= KEEP_JOINS_S for j in joins.values()):
                doc["joins"] = {k: j for k, j in joins.items() if self.now() - j["at"] < KEEP_JOINS_S}
            if self.store.save(doc["code"], version, doc, self.due_of(doc), index=self.index_of(doc)):
                self.store.publish({"room": doc["code"], "version": version + 1})
                return answer
            self.games.pop(doc["code"], None)
        raise RoomError(503, say("The room is too busy right now: try again."))

    def create(self, name: str, players: int = 2, npc_seats: list[int] | None = None, level: str = "normal",
               options: dict[str, Any] | None = None, client: str | None = None,
               answer_id: str | None = None, coach: bool | None = None) -> dict[str, Any]:
        """A new room; its creator takes seat 0. ``npc_seats``: the seats NPCs of ``level`` play.
        ``coach``: whether every seat may ask the coach for a hint (None: yes when NPCs play every
        other seat, no when other people may join; the creator can change it at any time).
        ``client``: the address the request came from (its ``create`` limit, and everyone's; None:
        this process itself, unlimited). ``answer_id``: a retry with the same id gets the first
        answer (the same room and token) for an hour."""
        name = self.check_name(name)
        if players not in SEATS:
            raise RoomError(422, say("A Guerra room has 2, 4 or 6 seats (teams of 2 or 3), not {players}.",
                                     players=players))
        if level not in LEVELS:
            raise RoomError(422, say("The NPC level is one of {levels} (got {level}).", levels=", ".join(LEVELS),
                                     level=repr(str(level)[:20])))
        npc_seats = sorted(set(npc_seats or []))
        if any(not isinstance(i, int) or not 0 < i < players for i in npc_seats):
            raise RoomError(422, say("NPC seats are numbered 1 to {last} (seat 0 is the creator's).",
                                     last=players - 1))
        options = self.check_options(options or {}, players)
        key = f"create:{digest(answer_id)}" if answer_id else None
        if key is not None:
            earlier = self.store.recall(key, self.now())
            if earlier is not None:
                return earlier
        if client is not None:
            who = client_key(client)
            self.limit("create", who, cost=0)
            self.limit("create-all", "all", cost=0)
            self.limit("create", who)
            self.limit("create-all", "all")
        token = secrets.token_urlsafe(18)
        seats = [{"name": name, "by": "player", "token": digest(token), "online": {}, "offline_since": None,
                  "away": False}]
        for i in range(1, players):
            npc = i in npc_seats
            seats.append({"name": f"NPC {i + 1}" if npc else None, "by": "npc" if npc else "open", "token": None,
                          "online": {}, "offline_since": None, "away": False})
        if coach is None:
            coach = set(npc_seats) == set(range(1, players))
        doc = {"code": "", "created": self.now(), "players": players, "level": level, "options": options,
               "seed": secrets.token_hex(8), "started": False, "seats": seats, "creator": 0, "moves": [],
               "deadline": None, "deadline_set": None, "answers": {}, "coach": bool(coach)}
        for _ in range(50):
            doc["code"] = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            answer = {"code": doc["code"], "seat": 0, "token": token}
            made = self.store.create(doc["code"], doc, index=self.index_of(doc),
                                     once=None if key is None else (key, answer, self.now(), KEEP_JOINS_S))
            if isinstance(made, dict):             # the same id's first try made its room meanwhile
                return made
            if made:
                self.store.publish({"room": doc["code"], "version": 1})
                return answer
        raise RoomError(503, say("No free room code was found: try again."))

    def join(self, code: str, name: str, seat: int | None = None, client: str | None = None,
             answer_id: str | None = None) -> dict[str, Any]:
        """Take an open seat (before the start) or an NPC's seat (any time): a new seat token.
        ``client``: the address the request came from (its ``join`` limit). ``answer_id``: a retry
        with the same id gets the first answer (the same seat and token) for an hour."""
        name = self.check_name(name)
        token = secrets.token_urlsafe(18)
        key = digest(f"join:{answer_id}") if answer_id else None
        if client is not None:
            self.limit("join", client_key(client), cost=0)
        fresh = []

        def edit(doc, game):
            earlier = (doc.get("joins") or {}).get(key) if key else None
            if earlier is not None:
                try:
                    here = self.seat_of(doc, earlier["token"])
                except RoomError:
                    raise RoomError(409, say("That join was made, but its seat has gone to another device "
                                             "since: join again.")) from None
                return Unchanged({"code": doc["code"], "seat": here, "token": earlier["token"]})
            free = [i for i, s in enumerate(doc["seats"])
                    if s["by"] == "open" or (s["by"] == "npc" and not s["away"])]
            if doc.get("over"):
                raise RoomError(409, say("This room's game is over."))
            if not free:
                raise RoomError(409, say("Every seat of this room is taken."))
            # by default an open seat before an NPC's (a partner joining lands on an empty chair)
            i = ([k for k in free if doc["seats"][k]["by"] == "open"] or free)[0] if seat is None else seat
            if i not in free:
                raise RoomError(409, say("Seat {seat} is not free (free: {free}).", seat=i + 1,
                                         free=", ".join(str(k + 1) for k in free)))
            s = doc["seats"][i]
            for k, x in enumerate(doc["seats"]):           # every name a person reads at this table
                for other in {x.get("player") or x["name"], x["name"]} - {None} if k != i else ():
                    if names.same(name, other):
                        raise RoomError(409, say("Somebody at this table is already called {other}: pick another "
                                                 "name.", other=other))
                    if names.alike(name, other):
                        raise RoomError(409, say("{name} looks just like {other}, who is at this table: pick a name "
                                                 "that looks different.", name=name, other=other))
            if s["by"] == "open" or not doc["started"]:        # the table has no names until the start
                s["name"], s["player"] = name, None
            else:
                s["player"] = name      # the seat keeps its name at the table; the player shows beside it
            s.update(by="player", token=digest(token), online={}, offline_since=self.now(), away=False)
            if key:
                doc.setdefault("joins", {})[key] = {"token": token, "at": self.now()}
            fresh.append(i)
            return {"code": doc["code"], "seat": i, "token": token}

        answer = self.change(code, edit)
        if fresh and client is not None:
            try:
                self.limit("join", client_key(client))
            except RoomError:              # joined meanwhile by a request of its own: this one stands
                pass
        return answer

    def move(self, code: str, token: str, seat: int) -> dict[str, Any]:
        """Before the start, a seated player moves to an open seat (to sit with a partner): the seat,
        its token and its connections go along; the creator stays the creator."""
        def edit(doc, game):
            me = self.seat_of(doc, token)
            if me is None:
                raise RoomError(401, say("Only a seated player's device may change seat."))
            if doc["started"]:
                raise RoomError(409, say("The game has started: everyone keeps their seat until it is over."))
            if not 0 <= seat < len(doc["seats"]):
                raise RoomError(422, say("This room has seats 1 to {last}.", last=len(doc["seats"])))
            if seat == me:
                return Unchanged({"code": doc["code"], "seat": me})
            if doc["seats"][seat]["by"] != "open":
                raise RoomError(409, say("Seat {seat} is not open.", seat=seat + 1))
            doc["seats"][seat], doc["seats"][me] = doc["seats"][me], doc["seats"][seat]
            if doc["creator"] == me:
                doc["creator"] = seat
            return {"code": doc["code"], "seat": seat}

        return self.change(code, edit)

    def start(self, code: str, token: str, fill: bool = False) -> None:
        """The creator starts the game; with ``fill`` open seats get NPCs, else they must be taken."""
        def edit(doc, game):
            if self.seat_of(doc, token) != doc["creator"]:
                raise RoomError(403, say("Only the device that created the room starts it."))
            if doc["started"]:
                raise RoomError(409, say("The game has already started."))
            open_seats = [i for i, s in enumerate(doc["seats"]) if s["by"] == "open"]
            if open_seats and not fill:
                raise RoomError(409, say_n("Seat {seats} still empty: wait for the players, or start with NPCs in "
                                           "the empty seats.", "Seats {seats} still empty: wait for the players, "
                                           "or start with NPCs in the empty seats.", len(open_seats),
                                           seats=", ".join(str(i + 1) for i in open_seats)))
            for i in open_seats:
                doc["seats"][i].update(by="npc", name=NPC_NAMES[i])
            self.playable(doc)
            doc["started"] = True
            doc["started_at"] = self.now()

        self.change(code, edit)

    @staticmethod
    def playable(doc: dict) -> None:
        """RoomError 409 with the referee's sentence when the seats' names can't start a game (a room
        saved before the name rule, whose names look alike): never a 500 at the start."""
        try:
            DigitalGuerra([s["name"] for s in doc["seats"]], doc["seed"], doc["options"])
        except SetupError as err:
            why = err.args[0] if err.args else str(err)          # the referee's sentence, with its message
            raise RoomError(409, say("This table can't start: {why}", why=why)) from None

    def again(self, code: str, token: str) -> None:
        """The creator starts a new game at the same table once the game is over (a new shuffle)."""
        def edit(doc, game):
            if self.seat_of(doc, token) != doc["creator"]:
                raise RoomError(403, say("Only the device that created the room starts another game."))
            if not doc.get("over"):
                raise RoomError(409, say("The game is still being played: another starts when it is over."))
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
            raise RoomError(422, say("A move is kind, slot, down, parity and choice ({why}).", why=str(err))) from None

        def edit(doc, game):
            seat = self.seat_of(doc, token)            # the token first: an id answers only its own seat
            if seat is None:
                raise RoomError(401, say("Only a seat's device may play: join the room to get a seat."))
            key = f"{seat}:{answer_id}" if answer_id else None
            if key and key in doc["answers"]:
                return Unchanged(doc["answers"][key])
            if game is None:
                raise RoomError(409, say("The game has not started yet."))
            name = doc["seats"][seat]["name"]
            if doc["seats"][seat]["by"] != "player":
                raise RoomError(409, say("An NPC is playing {seat}'s seat: reconnect to take it back.", seat=name))
            try:
                before = len(game.rulings)
                game.act(name, m)
            except IllegalEvent as err:
                raise RoomError(409, err.message) from None
            answer = {"rulings": [r.to_json() for r in game.rulings[before:]], "move": len(doc["moves"])}
            self.record(doc, name, m, "player")
            if key:
                doc["answers"][key] = answer
                while len(doc["answers"]) > KEEP_ANSWERS:
                    doc["answers"].pop(next(iter(doc["answers"])))
            return answer

        return self.change(code, edit)

    def suggest(self, code: str, token: str, move: dict[str, Any]) -> list[str]:
        """A partner's suggestion: one of the moves a partner of the same team may make now (a card
        face up or down, not which card: the suggester does not see the partner's hand), shown to
        those partners only (not kept). A few a seat, then one every 2 seconds. The partners' names."""
        version, doc = self.load(code)
        seat = self.seat_of(doc, token)
        if seat is None:
            raise RoomError(401, say("Only a seat's device may suggest a move to its partners."))
        if not [i for i in range(len(doc["seats"])) if i != seat and i % 2 == seat % 2]:
            raise RoomError(409, say("Only a team game has partners to suggest a move to."))
        self.limit("suggest", f"{doc['code']}:{seat}")
        try:
            wanted = suggestion(Move(**{k: v for k, v in dict(move).items()}))
        except TypeError as err:
            raise RoomError(422, say("A move is kind, slot, down, parity and choice ({why}).", why=str(err))) from None
        game = self.game(doc)
        offered = self.suggestions(doc, game, seat)
        to = [i for i, moves in offered.items() if wanted in moves]
        if not to:
            can = sorted({describe_move(m) for moves in offered.values() for m in moves})
            raise RoomError(409, say("That is not a move your partner can make now (they may: {moves}).",
                                     moves=", ".join(can)) if can else
                            say("That is not a move your partner can make now: they have no decision to make."))
        seats = doc["seats"]
        self.store.publish({"room": doc["code"], "suggest": {
            "from": seats[seat].get("player") or seats[seat]["name"], "to": [seats[i]["name"] for i in to],
            "move": wanted, "text": describe_move(wanted)}})
        return [seats[i].get("player") or seats[i]["name"] for i in to]

    def set_coach(self, code: str, token: str, on: bool) -> None:
        """The creator turns the coach on or off for every seat of the room."""
        def edit(doc, game):
            if self.seat_of(doc, token) != doc["creator"]:
                raise RoomError(403, say("Only the device that created the room turns the coach on or off."))
            if bool(doc.get("coach")) == bool(on):
                return UNCHANGED
            doc["coach"] = bool(on)

        self.change(code, edit)

    def hint(self, code: str, token: str) -> Callable[[], dict[str, Any]]:
        """The coach's advice for the seat whose device asks, on its own decision now, as a function
        to call anywhere (it thinks on a copy of the seat's view: a server runs it off the event loop).
        It gives the hard level's move (``move``, with its button's ``label``) and one sentence why
        (``text``). Only when the room's creator has the coach on; 3 a seat at once, then one every
        3 seconds."""
        version, doc = self.load(code)
        seat = self.seat_of(doc, token)
        if seat is None:
            raise RoomError(401, say("Only a seat's device may ask the coach: join the room to get a seat."))
        if not doc.get("coach"):
            raise RoomError(403, say("The coach is off in this room: the room's creator can turn it on."))
        game = self.game(doc)
        if game is None or game.over:
            raise RoomError(409, say("The coach helps during a game: there is no decision to make now."))
        name = doc["seats"][seat]["name"]
        waiting = game.waiting()
        moves = game.moves(name) if doc["seats"][seat]["by"] == "player" else []
        if waiting is None or not moves:
            raise RoomError(409, say("It isn't your decision now: the coach helps with your own moves."))
        self.limit("hint", f"{doc['code']}:{seat}")
        view, kind, made = game.view(name), waiting[0], len(doc["moves"])     # a frozen view, plain values
        rng = random.Random(f"{doc['seed']}:coach:{seat}:{made}")
        shown, said = shown_names(doc["seats"]), shown_message(doc["seats"])

        def think() -> dict[str, Any]:
            advice = advise(view, kind, moves, rng)
            move = advice.move.to_json()
            return {"move": {**move, "label": describe_move(move, list(view.hand))}, "text": shown(advice.text),
                    "msg": said(message(advice.text)), "moves": made}

        return think

    def suggestions(self, doc: dict, game: DigitalGuerra | None, seat: int) -> dict[int, list[dict[str, Any]]]:
        """What ``seat`` may suggest to each partner a player holds: the moves that partner may make now."""
        if game is None or game.over:
            return {}
        out = {}
        for i, s in enumerate(doc["seats"]):
            if i != seat and i % 2 == seat % 2 and s["by"] == "player":
                moves = [suggestion(m) for m in game.moves(s["name"])]
                if moves:
                    out[i] = list({json.dumps(m, sort_keys=True): m for m in moves}.values())
        return out

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
        for code in self.store.online():           # only the rooms somebody is (or was) connected to
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

    def sweep(self) -> int:
        """Delete the rooms nobody has been connected to for ``ABANDONED_S`` (24 h): their codes are
        free again. Only the expired rooms' index is read. How many went."""
        gone = 0
        for code in self.store.expired(self.now()):
            found = self.store.load(code)
            if found is None:
                continue
            version, doc = found
            if not self.abandoned(doc):           # its index is behind its document: save it again
                try:
                    self.change(code, lambda doc, game: None)
                except RoomError:
                    pass
                continue
            if self.store.delete(code, version):
                self.games.pop(code, None)
                gone += 1
        return gone

    # -- the clock -----------------------------------------------------------------------------------
    def tick(self) -> int:
        """Fire whatever is due: NPC moves, timed-out decisions, NPC take-overs. How many rooms changed."""
        return sum(self.fire_room(code) for code in self.due())

    def due(self) -> list[str]:
        """The rooms with something due now (a server fires them one at a time, answering its
        devices between two: a hard NPC thinks for tens of milliseconds)."""
        return self.store.due(self.now())

    def fire_room(self, code: str) -> bool:
        """Fire what is due in one room; whether it changed."""
        try:
            return self.change(code, self.fire) is not None
        except RoomError:
            return False

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
            "creator": seat is not None and seat == doc["creator"], "coach": bool(doc.get("coach")),
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
            offered = self.suggestions(doc, game, seat) if me["by"] == "player" else {}
            out["suggest"] = [{**m, "label": describe_move(m)} for m in
                              {json.dumps(m, sort_keys=True): m for ms in offered.values() for m in ms}.values()]
        else:
            table = spectator_table(state.public_view())
            out["moves"] = []
            out["suggest"] = []
        out["table"] = table
        w = game.waiting()
        out["waiting"] = None if w is None else {"kind": w[0], "seats": w[1], "deadline": doc["deadline"],
                                                 "since": doc["deadline_set"],
                                                 "yours": me is not None and me["name"] in w[1]}
        shown = shown_names(doc["seats"])
        said = shown_message(doc["seats"])
        prompt = state.prompt().text
        out["prompt"] = shown(prompt)
        out["prompt_msg"] = said(message(prompt))       # the same words as messages each page renders in
        last = game.rulings[-6:]                        # its own language (web/static/i18n.js); None: none
        out["rulings"] = [shown(r.text) for r in last]
        out["ruling_msgs"] = [said(message(r.text)) for r in last]
        out["ruling_count"] = len(game.rulings)          # how many rulings so far: which of those are new
        out["result"] = {**state.result, "text": shown(state.result["text"]), "msg": said(message(state.result["text"]))} \
            if isinstance(state.result, dict) and "text" in state.result else state.result
        out["dealt"] = bool(game.dealt)                 # this confronto's cards are in the hands
        out["scores"] = list(state.scores)
        out["side_names"] = [shown(n) for n in state.side_names]
        return out

    def expires_at(self, doc: dict) -> float | None:
        """When the room goes (``ABANDONED_S`` after the last sign of anybody), or None while somebody
        is connected to it."""
        people = [s for s in doc["seats"] if s["by"] == "player" or s.get("away")]
        if any(s.get("online") for s in people):
            return None
        last = max([doc["created"]] + [m.get("at", 0) for m in doc["moves"][-1:]]
                   + [s["offline_since"] for s in people if s.get("offline_since") is not None])
        return last + ABANDONED_S

    def abandoned(self, doc: dict) -> bool:
        """Nobody has been connected to the room for ``ABANDONED_S`` (24 h): it leaves the lobby's list
        and the clock deletes it (``sweep``)."""
        expires = self.expires_at(doc)
        return expires is not None and self.now() >= expires

    @staticmethod
    def free_seats(doc: dict) -> list[int]:
        """The seats a newcomer may take: open ones before the start, an NPC's (not held for a player) any time."""
        return [i for i, s in enumerate(doc["seats"])
                if (s["by"] == "open" and not doc["started"]) or (s["by"] == "npc" and not s["away"])]

    def index_of(self, doc: dict) -> dict[str, Any]:
        """What the store indexes of a room: when it expires, whether the lobby lists it."""
        return {"expires": self.expires_at(doc), "listed": bool(self.free_seats(doc)) and not doc.get("over")}

    def listing(self, limit: int = LOBBY_PAGE, after: str | None = None) -> dict[str, Any]:
        """One page of the rooms a newcomer may join, newest first: not started with an open seat, or
        not over with an NPC's seat. ``after``: the previous page's ``next``. ``{"rooms", "next"}``
        (``next`` None on the last page)."""
        limit = max(1, min(LOBBY_MAX, int(limit)))
        cursor = None
        if after not in (None, ""):
            if not str(after).isdigit() or len(str(after)) > 18:
                raise RoomError(422, say("after is the next of the previous page of rooms."))
            cursor = int(after)
        page = self.store.lobby(limit, cursor)
        out = []
        for _, code in page:
            found = self.store.load(code)
            if found is None:
                continue
            _, doc = found
            if doc.get("over") or self.abandoned(doc):
                continue
            free = self.free_seats(doc)
            if free:
                out.append({"code": code, "players": doc["players"], "started": doc["started"], "free": free,
                            "seats": [s.get("player") or s["name"] or "(open)" for s in doc["seats"]],
                            "created": doc["created"]})
        return {"rooms": out, "next": str(page[-1][0]) if len(page) == limit else None}

    # -- checking ---------------------------------------------------------------------------------------
    @staticmethod
    def check_name(name: Any) -> str:
        """A seat's name by referee/names.py's rule, and never one the table gives its NPCs."""
        if not isinstance(name, str):
            raise RoomError(422, say("A player's name is text."))
        try:
            name = names.clean(name)
        except ValueError as err:
            raise RoomError(422, err.args[0]) from None
        for npc in NPC_NAMES:
            if names.alike(name, npc) or names.alike(name.replace(" ", ""), npc.replace(" ", "")):
                raise RoomError(422, say("{npc} is what this table calls an NPC: pick another name.", npc=npc))
        return name

    @staticmethod
    def check_options(options: dict[str, Any], players: int) -> dict[str, Any]:
        known = {o.name: o for o in GUERRA_OPTIONS}
        for k, v in options.items():
            if k not in known:
                raise RoomError(422, say("Guerra has no option {option} (it has {options}).", option=repr(str(k)[:30]),
                                     options=", ".join(known)))
        try:
            DigitalGuerra([f"P{i + 1}" for i in range(players)], 0, options)
        except SetupError as err:
            raise RoomError(422, err.args[0] if err.args else str(err)) from None      # its sentence, with its message
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


def shown_message(seats: list[dict]) -> Any:
    """:func:`shown_names` for a message (``referee.say.message``'s plain data): its string arguments
    and its lists of names say the player who took over an NPC's seat, and a card said by its number
    carries only the number (its code would tell the suit, which the sentence does not). Returns a
    function of a message (None stays None)."""
    shown = shown_names(seats)

    def swap(value: Any) -> Any:
        if isinstance(value, str):
            return shown(value)
        if isinstance(value, dict):
            if "names" in value:
                return {**value, "names": [shown(n) for n in value["names"]]}
            if "card" in value:         # Guerra says a card by its number: its code (the suit) stays unsaid
                return {"card": str(value["number"]), "number": value["number"]} if value.get("number") is not None else value
            if "args" in value:
                return {**value, "args": {k: swap(v) for k, v in value["args"].items()}}
        return value

    return lambda msg: None if msg is None else swap(msg)


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


def suggestion(move: Move) -> dict[str, Any]:
    """A move as a partner suggests it: a card face up or down, not which (the partner's hand is not
    the suggester's to see); any other move whole."""
    m = move.to_json()
    if m.get("kind") == "flip":
        return {"kind": "flip", "down": True} if m.get("down") else {"kind": "flip"}
    return m


def describe_move(move: dict[str, Any], hand: list[str] | None = None) -> str:
    """A move in words for a button or a suggestion: 'Play 7C face up', 'Raise', 'Call even'."""
    kind = move.get("kind")
    if kind == "flip":
        slot = move.get("slot")
        card = (hand[slot] if hand is not None and slot is not None and slot < len(hand) and hand[slot]
                else "a card" if slot is None else f"card {slot + 1}")
        return f"Play {card} face down" if move.get("down") else f"Play {card} face up"
    if kind == "call":
        return f"Troca: call {move.get('parity')}"
    if kind == "cut":
        return f"Cut {move.get('choice')}"
    if kind == "pass":
        return "Pass"
    return str(kind).capitalize()
