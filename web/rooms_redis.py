"""The room store of `warref serve --redis URL`: several server processes share their rooms through
one Redis (Debian's redis-server). The same interface as the default SQLite store (web/rooms.py's
RoomStore); each room is one JSON document with a version number.

Keys, all under a prefix (default ``warref``):

- ``{prefix}:room:{code}``: a hash, ``version`` (1 on create, +1 on each save) and ``doc`` (JSON);
- ``{prefix}:codes``: a set of every room's code;
- ``{prefix}:due``: a sorted set, each room with a due time scored by it (epoch seconds);
- ``{prefix}:rooms``: the pub/sub channel (JSON messages);
- ``{prefix}:alive:{process}``: set with an expiry by each server process while it runs.

Creating and saving are Lua scripts, so each is one atomic step for every process: a save checks
the version, writes the document and the next version and moves the room in the due set together,
and of several processes saving the same version exactly one wins (how a timer fires once).

Pub/sub is Redis's: fire and forget. A message published while a subscriber's connection is down
(Redis restarted, the network cut) never reaches it; the listener reconnects and carries on. The
store itself is the truth; a message only says "look again".
"""
from __future__ import annotations

import json
import logging
import threading
import time
from typing import Callable
from urllib.parse import urlsplit, urlunsplit

import redis

log = logging.getLogger(__name__)

# KEYS: room, codes. ARGV: code, doc. 1 if created, 0 if the code exists.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 1, 'doc', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""

# KEYS: room, due. ARGV: code, expected version, doc, due ('' for none). 1 if saved, 0 if not.
SAVE = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v or v ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'version', tonumber(v) + 1, 'doc', ARGV[3])
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
end
return 1
"""


def shown_url(url: str) -> str:
    """The URL for a message: its password, if any, replaced by ***."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        netloc = f"{user}:***@{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return url


class RedisRoomStore:
    """Rooms kept in Redis at ``url`` (``redis://host:port/db``). Raises RuntimeError naming the URL
    when Redis cannot be reached. Safe to share between threads."""

    def __init__(self, url: str, prefix: str = "warref", timeout: float = 5.0):
        self.url = url
        self.prefix = prefix
        self.channel = f"{prefix}:rooms"
        self._codes = f"{prefix}:codes"
        self._due = f"{prefix}:due"
        try:
            self._redis = redis.Redis.from_url(
                url, decode_responses=True, socket_connect_timeout=timeout, socket_timeout=timeout,
                health_check_interval=30)   # a connection idle for 30 s is PINGed before use
            self._redis.ping()
        except (redis.RedisError, ValueError, OSError) as err:
            raise RuntimeError(f"cannot reach Redis at {shown_url(url)}: {err}") from err
        self._create = self._redis.register_script(CREATE)
        self._save = self._redis.register_script(SAVE)
        self._callbacks: list[Callable[[dict], None]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pubsub = None
        self._thread: threading.Thread | None = None

    def _key(self, code: str) -> str:
        return f"{self.prefix}:room:{code}"

    # -- documents -------------------------------------------------------------------------------

    def create(self, code: str, doc: dict) -> bool:
        """Store ``doc`` as version 1 of room ``code``; False (nothing written) if it exists."""
        text = json.dumps(doc, separators=(",", ":"))
        return bool(self._create(keys=[self._key(code), self._codes], args=[code, text]))

    def load(self, code: str) -> tuple[int, dict] | None:
        """The room's (version, doc), or None if there is no such room."""
        version, text = self._redis.hmget(self._key(code), ["version", "doc"])
        if version is None or text is None:
            return None
        return int(version), json.loads(text)

    def save(self, code: str, version: int, doc: dict, due: float | None) -> bool:
        """Compare-and-swap: if the stored version is still ``version``, store ``doc`` as
        version + 1 and the room's next due time (None: nothing due). False, with nothing written,
        if the version has moved on or the room does not exist."""
        text = json.dumps(doc, separators=(",", ":"))
        when = "" if due is None else repr(float(due))
        return bool(self._save(keys=[self._key(code), self._due],
                               args=[code, str(int(version)), text, when]))

    def due(self, now: float) -> list[str]:
        """The codes of the rooms whose due time is <= ``now``, earliest first."""
        return list(self._redis.zrangebyscore(self._due, "-inf", repr(float(now))))

    def codes(self) -> list[str]:
        """Every room's code, sorted."""
        return sorted(self._redis.smembers(self._codes))

    # -- which server processes are alive ---------------------------------------------------------

    def heartbeat(self, process: str, ttl: float) -> None:
        """Say that server process ``process`` is alive for the next ``ttl`` seconds."""
        self._redis.set(f"{self.prefix}:alive:{process}", "1", px=max(1, int(ttl * 1000)))

    def alive(self) -> set[str]:
        """The processes whose last heartbeat has not run out."""
        start = len(f"{self.prefix}:alive:")
        return {k[start:] for k in self._redis.scan_iter(match=f"{self.prefix}:alive:*", count=200)}

    # -- pub/sub ---------------------------------------------------------------------------------

    def publish(self, message: dict) -> None:
        """Send ``message`` (JSON) to every subscribed store of every process, this one included."""
        self._redis.publish(self.channel, json.dumps(message, separators=(",", ":")))

    def subscribe(self, callback: Callable[[dict], None]) -> None:
        """Call ``callback(message)`` for every message published from now on, from a background
        thread (one per store, shared by all its callbacks). Returns once Redis has confirmed the
        subscription, so a message published after it returns is delivered."""
        with self._lock:
            self._callbacks.append(callback)
            if self._thread is not None:
                return
            pubsub = self._redis.pubsub()
            pubsub.subscribe(self.channel)
            deadline = time.monotonic() + 5
            while True:        # the confirmation: Redis has the subscription before we return
                reply = pubsub.get_message(timeout=0.5)
                if reply and reply["type"] == "subscribe":
                    break
                if time.monotonic() > deadline:
                    pubsub.close()
                    self._callbacks.remove(callback)
                    raise RuntimeError(f"Redis at {shown_url(self.url)} did not confirm the subscription")
            self._pubsub = pubsub
            self._stop.clear()
            self._thread = threading.Thread(target=self._listen, name="warref-redis-rooms", daemon=True)
            self._thread.start()

    def _listen(self) -> None:
        pubsub = self._pubsub
        down_since = None
        while not self._stop.is_set():
            try:
                # redis-py reconnects and subscribes again by itself when the connection drops
                reply = pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
            except (redis.RedisError, OSError) as err:
                if down_since is None:
                    down_since = time.monotonic()
                    log.warning("room messages from Redis at %s interrupted (%s); reconnecting",
                                shown_url(self.url), err)
                self._stop.wait(0.5)
                continue
            if down_since is not None:
                log.warning("room messages from Redis at %s back after %.1f s",
                            shown_url(self.url), time.monotonic() - down_since)
                down_since = None
            if not reply or reply.get("type") != "message":
                continue
            try:
                message = json.loads(reply["data"])
            except (TypeError, ValueError):
                log.warning("ignored a room message that is not JSON: %.200r", reply["data"])
                continue
            for callback in list(self._callbacks):
                try:
                    callback(message)
                except Exception:   # one bad callback must not stop the listener
                    log.exception("a room message callback failed")

    def close(self) -> None:
        """Stop the listener thread and close the connections. Idempotent."""
        with self._lock:
            self._stop.set()
            if self._thread is not None:
                self._thread.join(timeout=5)
                self._thread = None
            if self._pubsub is not None:
                try:
                    self._pubsub.close()
                except (redis.RedisError, OSError):
                    pass
                self._pubsub = None
            self._callbacks.clear()
            self._redis.close()
