"""SQLite persistence for `warref serve`: the games, every accepted log entry of each game, and each
game's clock. Stdlib sqlite3 in WAL mode with synchronous=FULL; every change is committed before the
server answers or pushes anything, so a `kill -9` loses nothing that a screen has shown.

The log is the source of truth: the referee's state is what replaying it gives (Table.restore). What
is kept beside it only saves time, and is checked before it is used: each entry's rulings, and every
500 entries a checkpoint: the referee's state saved (web/checkpoints.py), so that a restart replays
only the log's tail. The first answer to each request that carried an id is kept too, written with the
change, so that a retry is answered again instead of applied twice.

The clock is stored as its length, the time used before the current run, and the wall-clock time
the current run started (if it is running). A clock that was running when the server stopped has kept
running meanwhile, as a wall clock would: on restart its remaining time is counted from that stored
start time, and if it ran out while the server was down the server calls time as soon as it is back.

Several server processes (`warref serve --workers N`) share the one database file, so the table is
one table whatever answers: every change to it (a new game, an entry, a correction, the clock, the
zones, a battle photo) bumps a version number kept in ``meta``, in the change's own transaction,
and only if the version is still the one the process's memory was loaded at (compare and swap):
otherwise ``Stale`` is raised and nothing is written. A process that finds the stored version ahead
of its own (``Store.stored_version``) loads the table again before it reads or changes it.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON [{"name", "colour"}] in seat order
    options TEXT NOT NULL,          -- JSON, the options in force
    created REAL NOT NULL,          -- Unix time
    finished REAL,                  -- Unix time the game ended, else NULL
    result TEXT,                    -- JSON, the referee's result, else NULL
    clock_length REAL NOT NULL DEFAULT 0,
    clock_elapsed REAL NOT NULL DEFAULT 0,   -- seconds used before the current run
    clock_started REAL,                      -- Unix time the current run started; NULL when stopped
    clock_time_up INTEGER NOT NULL DEFAULT 0, -- whether the server has called time
    deck TEXT                                -- the deck chosen at set-up (a taught deck's name), else NULL
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,            -- JSON, exactly as in Table.log
    rulings TEXT,                   -- JSON, the rulings the entry was given (derived; NULL: not kept)
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS checkpoints (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,           -- the state after the first seq entries
    version TEXT NOT NULL,          -- web/checkpoints.py's referee_version() when it was made
    digest TEXT NOT NULL,           -- sha256 over those entries and their rulings (web/session.py)
    state BLOB NOT NULL,            -- the pickled state (web/checkpoints.py)
    check_text TEXT NOT NULL,       -- the state's snapshot() as JSON, compared after loading
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS answers (
    id TEXT PRIMARY KEY,            -- the id a client sent with a change
    game_id INTEGER,                -- the game it changed (informative)
    kind TEXT NOT NULL,             -- events, undo, corrections, clock, games
    fingerprint TEXT NOT NULL,      -- sha256 of the request, to tell a retry from another request
    status INTEGER NOT NULL,
    body TEXT NOT NULL,             -- JSON, the first answer without its view
    with_view INTEGER NOT NULL,     -- whether the answer had a view (a retry gets the current one)
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS photos (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,           -- the log index of the event whose ruling decided the battle
    jpeg BLOB NOT NULL,             -- the deciding camera frame, cards boxed
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS zones (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    seats TEXT NOT NULL             -- JSON {"Alex": [[x, y], ...]}: fractions of the frame
);
"""


@dataclass
class ClockState:
    length: float = 0.0
    elapsed: float = 0.0
    started_at: float | None = None
    time_up: bool = False

    @property
    def running(self) -> bool:
        return self.started_at is not None

    def used(self, now: float) -> float:
        return self.elapsed + (max(0.0, now - self.started_at) if self.started_at is not None else 0.0)

    def remaining(self, now: float) -> float:
        return max(0.0, self.length - self.used(now))

    def to_json(self, now: float) -> dict[str, Any]:
        return {"length_s": self.length, "remaining_s": round(self.remaining(now), 3),
                "running": self.running, "time_up": self.time_up, "server_time": now}


@dataclass
class GameRecord:
    id: int
    game: str
    players: list[dict[str, str]]
    options: dict[str, Any]
    created: float
    finished: float | None
    result: dict[str, Any] | None
    clock: ClockState
    deck: str | None = None          # the deck chosen at set-up (built in or taught); None: the camera's own


@dataclass
class CheckpointRow:
    seq: int
    version: str
    digest: str
    state: bytes
    check: str


@dataclass
class AnswerRow:
    id: str
    game_id: int | None
    kind: str
    fingerprint: str
    status: int
    body: dict[str, Any]
    with_view: bool


class Stale(Exception):
    """Another process changed the table since this one loaded it: nothing was written."""


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        self.version = 0              # the table's version this process's memory reflects (``loaded``)
        self._mutex = threading.Lock()
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        # a database made before the saved states were called checkpoints (issue 61) keeps them in a
        # table named snapshots: it is renamed, rows and all, before the schema is made (which would
        # otherwise add an empty checkpoints table beside it)
        self._rename_table("snapshots", "checkpoints")
        self.db.executescript(SCHEMA)
        # a database made before the set-up chose a deck gets the column (NULL: the camera's own deck)
        if "deck" not in {row[1] for row in self.db.execute("PRAGMA table_info(games)")}:
            self.db.execute("ALTER TABLE games ADD COLUMN deck TEXT")
        # and one made before the rulings were kept gets theirs (NULL: replayed on the next start)
        if "rulings" not in {row[1] for row in self.db.execute("PRAGMA table_info(entries)")}:
            self.db.execute("ALTER TABLE entries ADD COLUMN rulings TEXT")

    def _rename_table(self, old: str, new: str) -> None:
        """Table ``old`` renamed ``new`` if it exists and ``new`` does not (else nothing), in one
        transaction: of several processes opening the database at once, one renames it and the others
        find it renamed. Its rows, and the table's version in ``meta``, stay as they are."""
        with self._mutex:
            cur = self.db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                names = {row[0] for row in cur.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)", (old, new))}
                if old in names and new not in names:
                    cur.execute(f'ALTER TABLE "{old}" RENAME TO "{new}"')
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._mutex:
            self.db.close()

    # -- transactions ---------------------------------------------------------------------------
    def _write(self, statements: Iterable[tuple[str, tuple]], rowid_of: int = -1, table: bool = False,
               quiet: bool = False, bump: bool = True) -> Any:
        """The statements in one transaction. ``table``: they belong to the table, so the version
        must still be ``self.version`` (else ``Stale``, or with ``quiet`` nothing written and no
        error) and is bumped with them (unless not ``bump``: what only saves time later)."""
        with self._mutex:
            cur = self.db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                if table:
                    stored = self._stored(cur)
                    if stored != self.version:
                        raise Stale(f"the table is at version {stored}, this process loaded {self.version}")
                rowids = []
                for sql, params in statements:
                    cur.execute(sql, params)
                    rowids.append(cur.lastrowid)
                if table and bump:
                    cur.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)", (str(stored + 1),))
                cur.execute("COMMIT")
            except Stale:
                cur.execute("ROLLBACK")
                if quiet:
                    return None
                raise
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            if table and bump:
                self.version = stored + 1
            return rowids[rowid_of] if rowids else None

    @staticmethod
    def _stored(cur: Any) -> int:
        row = cur.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        return int(row[0]) if row else 0

    def stored_version(self) -> int:
        """The table's version in the database (another process may have moved it on)."""
        with self._mutex:
            return self._stored(self.db)

    def loaded(self) -> None:
        """Say that this process is about to load the table as stored now: its version is read
        before the table, so a change made meanwhile is found at the next look, never missed."""
        self.version = self.stored_version()

    def _read(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._mutex:
            return self.db.execute(sql, params).fetchall()

    # -- games ----------------------------------------------------------------------------------
    def new_game(self, game: str, players: list[dict[str, str]], options: dict[str, Any], created: float,
                 clock_length: float, deck: str | None = None, answer: AnswerRow | None = None) -> int:
        game_id = self._write([
            ("INSERT INTO games (game, players, options, created, clock_length, deck) VALUES (?, ?, ?, ?, ?, ?)",
             (game, json.dumps(players), json.dumps(options), created, clock_length, deck)),
            ("INSERT OR REPLACE INTO meta (key, value) VALUES ('current', CAST(last_insert_rowid() AS TEXT))", ()),
            *self._answer(answer, created),
        ], rowid_of=0, table=True)
        return int(game_id)

    def current_id(self) -> int | None:
        rows = self._read("SELECT value FROM meta WHERE key = 'current'")
        return int(rows[0][0]) if rows else None

    def _record(self, row: tuple) -> GameRecord:
        (gid, game, players, options, created, finished, result, length, elapsed, started, time_up, deck) = row
        return GameRecord(gid, game, json.loads(players), json.loads(options), created, finished,
                          json.loads(result) if result else None,
                          ClockState(length, elapsed, started, bool(time_up)), deck)

    _COLUMNS = ("id, game, players, options, created, finished, result, clock_length, clock_elapsed, "
                "clock_started, clock_time_up, deck")

    def game(self, game_id: int) -> GameRecord | None:
        rows = self._read(f"SELECT {self._COLUMNS} FROM games WHERE id = ?", (game_id,))
        return self._record(tuple(rows[0])) if rows else None

    def games(self) -> list[GameRecord]:
        return [self._record(tuple(r)) for r in
                self._read(f"SELECT {self._COLUMNS} FROM games ORDER BY id DESC")]

    def log(self, game_id: int) -> list[dict[str, Any]]:
        return [json.loads(r[0]) for r in
                self._read("SELECT entry FROM entries WHERE game_id = ? ORDER BY seq", (game_id,))]

    def entries(self, game_id: int) -> list[tuple[str, str | None]]:
        """Each log entry's JSON text and its rulings' (None where they were not kept), in order."""
        return [(r[0], r[1]) for r in
                self._read("SELECT entry, rulings FROM entries WHERE game_id = ? ORDER BY seq", (game_id,))]

    def checkpoints(self, game_id: int) -> list[CheckpointRow]:
        return [CheckpointRow(int(r[0]), r[1], r[2], bytes(r[3]), r[4]) for r in self._read(
            "SELECT seq, version, digest, state, check_text FROM checkpoints WHERE game_id = ? ORDER BY seq",
            (game_id,))]

    def answer(self, answer_id: str) -> AnswerRow | None:
        rows = self._read("SELECT id, game_id, kind, fingerprint, status, body, with_view FROM answers WHERE id = ?",
                          (answer_id,))
        if not rows:
            return None
        r = rows[0]
        return AnswerRow(r[0], r[1], r[2], r[3], int(r[4]), json.loads(r[5]), bool(r[6]))

    # -- changes (each one transaction) --------------------------------------------------------------
    @staticmethod
    def _finish(game_id: int, finished: float | None, result: dict | None) -> tuple[str, tuple]:
        return ("UPDATE games SET finished = ?, result = ? WHERE id = ?",
                (finished, json.dumps(result) if result is not None else None, game_id))

    @staticmethod
    def _clock(game_id: int, clock: ClockState) -> tuple[str, tuple]:
        return ("UPDATE games SET clock_length = ?, clock_elapsed = ?, clock_started = ?, clock_time_up = ? "
                "WHERE id = ?", (clock.length, clock.elapsed, clock.started_at, int(clock.time_up), game_id))

    @staticmethod
    def _checkpoint(game_id: int, cp: CheckpointRow) -> tuple[str, tuple]:
        return ("INSERT OR REPLACE INTO checkpoints (game_id, seq, version, digest, state, check_text) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, cp.seq, cp.version, cp.digest, sqlite3.Binary(cp.state), cp.check))

    @staticmethod
    def _answer(answer: AnswerRow | None, now: float) -> list[tuple[str, tuple]]:
        if answer is None:
            return []
        return [("INSERT OR REPLACE INTO answers (id, game_id, kind, fingerprint, status, body, with_view, created) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (answer.id, answer.game_id, answer.kind, answer.fingerprint, answer.status,
                  json.dumps(answer.body), int(answer.with_view), now))]

    def append(self, game_id: int, seq: int, entry: dict[str, Any], finished: float | None,
               result: dict | None, clock: ClockState, rulings: list[dict[str, Any]] | None = None,
               checkpoints: Iterable[CheckpointRow] = (), answer: AnswerRow | None = None, now: float = 0.0) -> None:
        """One new log entry, with its rulings, the checkpoints made since the last write and the answer
        to the request that sent it (one transaction: a retry after a crash finds the answer)."""
        self._write([("INSERT INTO entries (game_id, seq, entry, rulings) VALUES (?, ?, ?, ?)",
                      (game_id, seq, json.dumps(entry), json.dumps(rulings) if rulings is not None else None)),
                     self._finish(game_id, finished, result), self._clock(game_id, clock),
                     *[self._checkpoint(game_id, c) for c in checkpoints], *self._answer(answer, now)], table=True)

    def replace_log(self, game_id: int, log: list[dict[str, Any]], finished: float | None, result: dict | None,
                    clock: ClockState, start: int = 0, rulings: list[list[dict[str, Any]]] | None = None,
                    checkpoints: Iterable[CheckpointRow] = (), answer: AnswerRow | None = None,
                    now: float = 0.0) -> None:
        """The log from entry ``start`` on replaced by ``log[start:]`` (a correction: the entries before
        it, their rulings and the checkpoints up to it stay as they are; later checkpoints go)."""
        def rulings_of(i: int) -> str | None:
            return json.dumps(rulings[i]) if rulings is not None and i < len(rulings) else None

        self._write([("DELETE FROM entries WHERE game_id = ? AND seq >= ?", (game_id, start)),
                     ("DELETE FROM checkpoints WHERE game_id = ? AND seq > ?", (game_id, start)),
                     *[("INSERT INTO entries (game_id, seq, entry, rulings) VALUES (?, ?, ?, ?)",
                        (game_id, i, json.dumps(log[i]), rulings_of(i))) for i in range(start, len(log))],
                     *[self._checkpoint(game_id, c) for c in checkpoints],
                     self._finish(game_id, finished, result), self._clock(game_id, clock),
                     *self._answer(answer, now)], table=True)

    def save_derived(self, game_id: int, rulings: Iterable[tuple[int, list[dict[str, Any]]]],
                     checkpoints: Iterable[CheckpointRow], drop: Iterable[int]) -> None:
        """What a replay worked out that the store lacked or had stale: rulings, checkpoints to add, the
        checkpoints (by seq) that can no longer be used. Written only while the table is still at
        ``self.version`` (another process's change since would make them wrong); else nothing."""
        self._write([*[("DELETE FROM checkpoints WHERE game_id = ? AND seq = ?", (game_id, seq)) for seq in drop],
                     *[("UPDATE entries SET rulings = ? WHERE game_id = ? AND seq = ?", (json.dumps(r), game_id, seq))
                       for seq, r in rulings],
                     *[self._checkpoint(game_id, c) for c in checkpoints]], table=True, quiet=True,
                    bump=False)

    def save_answer(self, answer: AnswerRow, now: float = 0.0) -> None:
        self._write(self._answer(answer, now))

    def save_clock(self, game_id: int, clock: ClockState, answer: AnswerRow | None = None,
                   now: float = 0.0) -> None:
        self._write([self._clock(game_id, clock), *self._answer(answer, now)], table=True)

    # -- the camera's records: battle photos and seat zones ---------------------------------------
    def save_photo(self, game_id: int, seq: int, jpeg: bytes) -> None:
        self._write([("INSERT OR REPLACE INTO photos (game_id, seq, jpeg) VALUES (?, ?, ?)",
                      (game_id, seq, sqlite3.Binary(jpeg)))], table=True)

    def photo(self, game_id: int, seq: int) -> bytes | None:
        rows = self._read("SELECT jpeg FROM photos WHERE game_id = ? AND seq = ?", (game_id, seq))
        return bytes(rows[0][0]) if rows else None

    def photo_seqs(self, game_id: int) -> set[int]:
        return {int(r[0]) for r in self._read("SELECT seq FROM photos WHERE game_id = ?", (game_id,))}

    def save_zones(self, game_id: int, seats: dict[str, Any]) -> None:
        self._write([("INSERT OR REPLACE INTO zones (game_id, seats) VALUES (?, ?)", (game_id, json.dumps(seats)))],
                    table=True)

    def zones(self, game_id: int) -> dict[str, Any] | None:
        rows = self._read("SELECT seats FROM zones WHERE game_id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None
