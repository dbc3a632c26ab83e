"""The room store of `warref serve --redis URL`: several server processes share their rooms through
one Redis (Debian's redis-server). The same interface as the default SQLite store (web/rooms.py's
RoomStore); each room is one JSON document with a version number.

Keys, all under a prefix (default ``warref``):

- ``{prefix}:room:{code}``: a hash, ``version`` (1 on create, +1 on each save) and ``doc`` (JSON);
  ``seq`` (its place in the lobby's order) and ``listed`` (1 or 0) once its indexes are kept;
- ``{prefix}:codes``: a set of every room's code;
- ``{prefix}:due``: a sorted set, each room with a due time scored by it (epoch seconds);
- ``{prefix}:expires``: a sorted set, each room nobody is connected to scored by when it expires;
- ``{prefix}:online``: a set of the rooms somebody is connected to (they never expire meanwhile);
- ``{prefix}:lobby``: a sorted set of the rooms the lobby lists, scored by ``seq`` (``{prefix}:seq``);
- ``{prefix}:bucket:{key}``: a token bucket of the room limits (``tokens``, ``at``), expiring once full;
- ``{prefix}:once:{key}``: the answer to a create that carried an id, expiring after an hour;
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

from referee.say import say

log = logging.getLogger(__name__)

# the room's indexes (KEYS room, expires, online, lobby, seq; ARGV code, expires ('' while somebody is
# connected), listed ('1' or '0')), shared by CREATE and SAVE
INDEX = """
local function index(room, expires, online, lobby, seqkey, code, when, listed)
  if when == '' then
    redis.call('SADD', online, code)
    redis.call('ZREM', expires, code)
  else
    redis.call('SREM', online, code)
    redis.call('ZADD', expires, when, code)
  end
  local seq = redis.call('HGET', room, 'seq')
  if not seq then
    seq = redis.call('INCR', seqkey)
    redis.call('HSET', room, 'seq', seq)
  end
  redis.call('HSET', room, 'listed', listed)
  if listed == '1' then redis.call('ZADD', lobby, seq, code) else redis.call('ZREM', lobby, code) end
end
"""

# KEYS: room, codes, expires, online, lobby, seq, once. ARGV: code, doc, indexed ('1' or ''), expires,
# listed, answer ('' for none), its lifetime (ms). 1 if created, 0 if the code exists, the earlier
# answer if the once key holds one.
CREATE = INDEX + """
if ARGV[6] ~= '' then
  local earlier = redis.call('GET', KEYS[7])
  if earlier then return earlier end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 1, 'doc', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
if ARGV[3] == '1' then index(KEYS[1], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1], ARGV[4], ARGV[5]) end
if ARGV[6] ~= '' then redis.call('SET', KEYS[7], ARGV[6], 'PX', ARGV[7]) end
return 1
"""

# KEYS: room, due, expires, online, lobby, seq. ARGV: code, expected version, doc, due ('' for none),
# indexed ('1' or ''), expires, listed. 1 if saved, 0 if not.
SAVE = INDEX + """
local v = redis.call('HGET', KEYS[1], 'version')
if not v or v ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'version', tonumber(v) + 1, 'doc', ARGV[3])
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
end
if ARGV[5] == '1' then index(KEYS[1], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1], ARGV[6], ARGV[7]) end
return 1
"""

# KEYS: room, codes, due, expires, online, lobby. ARGV: code, expected version. 1 if deleted.
DELETE = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v or v ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('ZREM', KEYS[6], ARGV[1])
return 1
"""

# A token bucket. KEYS: bucket. ARGV: burst, seconds per token, now, cost. '0' if a token was there
# (cost taken), else the seconds until one is (as text: Redis makes a Lua number an integer).
TAKE = """
local burst, every, now, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(held[1]), tonumber(held[2])
if not tokens then tokens, at = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - at) / every)
if tokens < 1 then return tostring((1 - tokens) * every) end
if cost > 0 then
  tokens = tokens - cost
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * every * 1000) + 1000)
end
return '0'
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
        self._expires = f"{prefix}:expires"
        self._online = f"{prefix}:online"
        self._lobby = f"{prefix}:lobby"
        self._seq = f"{prefix}:seq"
        try:
            self._redis = redis.Redis.from_url(
                url, decode_responses=True, socket_connect_timeout=timeout, socket_timeout=timeout,
                health_check_interval=30)   # a connection idle for 30 s is PINGed before use
            self._redis.ping()
        except (redis.RedisError, ValueError, OSError) as err:
            raise RuntimeError(say("cannot reach Redis at {url}: {why}", url=shown_url(url), why=str(err))) from err
        self._create = self._redis.register_script(CREATE)
        self._save = self._redis.register_script(SAVE)
        self._delete = self._redis.register_script(DELETE)
        self._take = self._redis.register_script(TAKE)
        self._callbacks: list[Callable[[dict], None]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pubsub = None
        self._thread: threading.Thread | None = None

    def _key(self, code: str) -> str:
        return f"{self.prefix}:room:{code}"

    # -- documents -------------------------------------------------------------------------------

    @staticmethod
    def _index_args(index: dict | None) -> list[str]:
        if index is None:
            return ["", "", ""]
        return ["1", "" if index["expires"] is None else repr(float(index["expires"])),
                "1" if index["listed"] else "0"]

    def create(self, code: str, doc: dict, index: dict | None = None,
               once: tuple[str, dict, float, float] | None = None) -> bool | dict:
        """Store ``doc`` as version 1 of room ``code``; False (nothing written) if it exists.
        ``index``: ``{"expires", "listed"}``. ``once``: (key, answer, now, seconds): the answer is kept
        under key with the room; if the key already holds one, that answer is returned, nothing made."""
        text = json.dumps(doc, separators=(",", ":"))
        once_key = f"{self.prefix}:once:{once[0]}" if once else f"{self.prefix}:once:-"
        answer = [json.dumps(once[1]), str(max(1, int(once[3] * 1000)))] if once else ["", "0"]
        made = self._create(keys=[self._key(code), self._codes, self._expires, self._online, self._lobby,
                                  self._seq, once_key],
                            args=[code, text, *self._index_args(index), *answer])
        if isinstance(made, str):
            return json.loads(made)
        return bool(made)

    def recall(self, key: str, now: float) -> dict | None:
        """The answer ``create`` kept under ``key`` (None: none, or expired)."""
        text = self._redis.get(f"{self.prefix}:once:{key}")
        return None if text is None else json.loads(text)

    def load(self, code: str) -> tuple[int, dict] | None:
        """The room's (version, doc), or None if there is no such room."""
        version, text = self._redis.hmget(self._key(code), ["version", "doc"])
        if version is None or text is None:
            return None
        return int(version), json.loads(text)

    def save(self, code: str, version: int, doc: dict, due: float | None, index: dict | None = None) -> bool:
        """Compare-and-swap: if the stored version is still ``version``, store ``doc`` as
        version + 1 and the room's next due time (None: nothing due), and its ``index`` if given.
        False, with nothing written, if the version has moved on or the room does not exist."""
        text = json.dumps(doc, separators=(",", ":"))
        when = "" if due is None else repr(float(due))
        return bool(self._save(keys=[self._key(code), self._due, self._expires, self._online, self._lobby, self._seq],
                               args=[code, str(int(version)), text, when, *self._index_args(index)]))

    def delete(self, code: str, version: int) -> bool:
        """Delete the room if it is still at ``version``, and every index of it (its code is free again)."""
        return bool(self._delete(keys=[self._key(code), self._codes, self._due, self._expires, self._online,
                                       self._lobby], args=[code, str(int(version))]))

    def expired(self, now: float, limit: int = 200) -> list[str]:
        """Rooms whose expiry time (nobody connected) is <= ``now``."""
        return list(self._redis.zrangebyscore(self._expires, "-inf", repr(float(now)), start=0, num=limit))

    def online(self) -> list[str]:
        """Rooms that somebody may be connected to."""
        return sorted(self._redis.smembers(self._online))

    def unindexed(self) -> list[str]:
        """Rooms saved before their indexes were kept (no ``listed`` field)."""
        codes = sorted(self._redis.smembers(self._codes))
        pipe = self._redis.pipeline(transaction=False)
        for code in codes:
            pipe.hexists(self._key(code), "listed")
        return [c for c, has in zip(codes, pipe.execute()) if not has]

    def lobby(self, limit: int, after: int | None = None) -> list[tuple[int, str]]:
        """The rooms the lobby lists, newest first: (cursor, code), after ``after`` (a cursor)."""
        top = "+inf" if after is None else f"({int(after)}"
        found = self._redis.zrevrangebyscore(self._lobby, top, "-inf", start=0, num=limit, withscores=True)
        return [(int(score), code) for code, score in found]

    def take(self, key: str, burst: float, every: float, now: float, cost: float = 1.0) -> float:
        """A token bucket shared by every process: 0 if ``key``'s bucket holds a token (``cost`` of them
        taken), else the seconds until it does (nothing taken)."""
        return float(self._take(keys=[f"{self.prefix}:bucket:{key}"],
                                args=[repr(float(burst)), repr(float(every)), repr(float(now)), repr(float(cost))]))

    def prune(self, now: float) -> None:
        """Nothing to do: Redis expires full buckets and old answers by itself."""

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
