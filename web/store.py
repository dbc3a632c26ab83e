"""SQLite persistence for `warref serve`: the games, every accepted log entry of each game, and each
game's clock. Stdlib sqlite3 in WAL mode with synchronous=FULL; every change is committed before the
server answers or pushes anything, so a `kill -9` loses nothing that a screen has shown.

The referee's state is never stored: it is what replaying a game's log gives (Table.restore). The
clock is stored as its length, the time used before the current run, and the wall-clock time the
current run started (if it is running). A clock that was running when the server stopped has kept
running meanwhile, as a wall clock would: on restart its remaining time is counted from that stored
start time, and if it ran out while the server was down the server calls time as soon as it is back.
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
    PRIMARY KEY (game_id, seq)
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


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        self._mutex = threading.Lock()
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)
        # a database made before the set-up chose a deck gets the column (NULL: the camera's own deck)
        if "deck" not in {row[1] for row in self.db.execute("PRAGMA table_info(games)")}:
            self.db.execute("ALTER TABLE games ADD COLUMN deck TEXT")

    def close(self) -> None:
        with self._mutex:
            self.db.close()

    # -- transactions ---------------------------------------------------------------------------
    def _write(self, statements: Iterable[tuple[str, tuple]], rowid_of: int = -1) -> Any:
        with self._mutex:
            cur = self.db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                rowids = []
                for sql, params in statements:
                    cur.execute(sql, params)
                    rowids.append(cur.lastrowid)
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            return rowids[rowid_of] if rowids else None

    def _read(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._mutex:
            return self.db.execute(sql, params).fetchall()

    # -- games ----------------------------------------------------------------------------------
    def new_game(self, game: str, players: list[dict[str, str]], options: dict[str, Any], created: float,
                 clock_length: float, deck: str | None = None) -> int:
        game_id = self._write([
            ("INSERT INTO games (game, players, options, created, clock_length, deck) VALUES (?, ?, ?, ?, ?, ?)",
             (game, json.dumps(players), json.dumps(options), created, clock_length, deck)),
            ("INSERT OR REPLACE INTO meta (key, value) VALUES ('current', CAST(last_insert_rowid() AS TEXT))", ()),
        ], rowid_of=0)
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

    # -- changes (each one transaction) --------------------------------------------------------------
    @staticmethod
    def _finish(game_id: int, finished: float | None, result: dict | None) -> tuple[str, tuple]:
        return ("UPDATE games SET finished = ?, result = ? WHERE id = ?",
                (finished, json.dumps(result) if result is not None else None, game_id))

    @staticmethod
    def _clock(game_id: int, clock: ClockState) -> tuple[str, tuple]:
        return ("UPDATE games SET clock_length = ?, clock_elapsed = ?, clock_started = ?, clock_time_up = ? "
                "WHERE id = ?", (clock.length, clock.elapsed, clock.started_at, int(clock.time_up), game_id))

    def append(self, game_id: int, seq: int, entry: dict[str, Any], finished: float | None,
               result: dict | None, clock: ClockState) -> None:
        self._write([("INSERT INTO entries (game_id, seq, entry) VALUES (?, ?, ?)", (game_id, seq, json.dumps(entry))),
                     self._finish(game_id, finished, result), self._clock(game_id, clock)])

    def replace_log(self, game_id: int, log: list[dict[str, Any]], finished: float | None, result: dict | None,
                    clock: ClockState) -> None:
        self._write([("DELETE FROM entries WHERE game_id = ?", (game_id,)),
                     *[("INSERT INTO entries (game_id, seq, entry) VALUES (?, ?, ?)", (game_id, i, json.dumps(e)))
                       for i, e in enumerate(log)],
                     self._finish(game_id, finished, result), self._clock(game_id, clock)])

    def save_clock(self, game_id: int, clock: ClockState) -> None:
        self._write([self._clock(game_id, clock)])

    # -- the camera's records: battle photos and seat zones ---------------------------------------
    def save_photo(self, game_id: int, seq: int, jpeg: bytes) -> None:
        self._write([("INSERT OR REPLACE INTO photos (game_id, seq, jpeg) VALUES (?, ?, ?)",
                      (game_id, seq, sqlite3.Binary(jpeg)))])

    def photo(self, game_id: int, seq: int) -> bytes | None:
        rows = self._read("SELECT jpeg FROM photos WHERE game_id = ? AND seq = ?", (game_id, seq))
        return bytes(rows[0][0]) if rows else None

    def photo_seqs(self, game_id: int) -> set[int]:
        return {int(r[0]) for r in self._read("SELECT seq FROM photos WHERE game_id = ?", (game_id,))}

    def save_zones(self, game_id: int, seats: dict[str, Any]) -> None:
        self._write([("INSERT OR REPLACE INTO zones (game_id, seats) VALUES (?, ?)", (game_id, json.dumps(seats)))])

    def zones(self, game_id: int) -> dict[str, Any] | None:
        rows = self._read("SELECT seats FROM zones WHERE game_id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None
