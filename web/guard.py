"""Who may change the game, and from where (docs/dashboard-api.md, "Who may change the game").

- ``PinLimits``: wrong PINs are limited per client and for all clients together, so that a
  four-digit PIN cannot be guessed: each client has ``FREE`` wrong PINs, then waits before the
  next is even checked, the wait doubling with each wrong one (1 minute, 2, 4, ... up to a day);
  all clients together may make ``OVERALL`` wrong PINs, then ``REFILL`` an hour (a bucket). Trying
  all 10,000 PINs at that rate takes more than a year. The bucket refuses only clients the server
  does not know: the machine running warref and a client that has given the right PIN before are
  never locked out by strangers. A right PIN clears its client's count. The counts live in the
  server's SQLite file, so restarts and `--workers` share them. The client is the socket's address
  (`warref serve` trusts X-Forwarded-For only from `--forwarded-allow-ips`), an IPv6 one by its /64
  (``client_key``, as the rooms' limits count). Hand-written rather
  than slowapi: slowapi (with ``limits``) counts every request to a route in a window, whereas here
  only wrong PINs count, a client's wait grows with each, and a paired device or a right PIN is
  never slowed.
- ``Devices``: pairing. A device that gives the PIN once (``POST /api/pair``) gets a device
  token: an HttpOnly, SameSite=Strict cookie for the dashboard and the same token in the
  ``X-Warref-Device`` header for API clients. Tokens are kept hashed in SQLite; the dashboard
  lists devices and revokes them.
- ``allowed_hosts`` and ``HostCheck``: requests (HTTP and WebSocket) must name this machine in
  their Host header: localhost, its LAN addresses and names, and any ``--allow-host``. A page
  on another site that points a DNS name at this machine (DNS rebinding) is refused.
- ``HEADERS``: a Content-Security-Policy without inline script, no framing, nosniff, no referrer.
"""
from __future__ import annotations

import hashlib
import ipaddress
import math
import re
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from referee.say import say, say_n
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import JSONResponse

FREE = 5                      # wrong PINs a client may make before it must wait
FIRST_WAIT = 60.0             # seconds, doubled with each wrong PIN after those
LONGEST_WAIT = 24 * 3600.0
OVERALL = 10                  # wrong PINs all clients together may make at once ...
REFILL = 1.0                  # ... and then this many an hour
KEEP_CLIENTS = 10_000         # clients remembered; the oldest unlocked strangers are forgotten first
LOCAL = frozenset({"127.0.0.1", "::1", "localhost"})   # the machine running warref
COOKIE = "warref_device"
HEADER = "x-warref-device"
NAME_LIMIT = 40

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "connect-src 'self'; media-src 'self' blob:; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
HEADERS = {"content-security-policy": CSP, "x-frame-options": "DENY", "x-content-type-options": "nosniff",
           "referrer-policy": "no-referrer"}


def wait_words(seconds: float) -> str:
    """A wait as a person says it: "1 second", "40 seconds", "3 minutes", "2 hours", "3 days"."""
    seconds = max(1, math.ceil(seconds))
    if seconds < 90:
        return say_n("{n} second", "{n} seconds", seconds)
    if seconds < 90 * 60:
        return say_n("{n} minute", "{n} minutes", math.ceil(seconds / 60))
    if seconds < 72 * 3600:
        return say_n("{n} hour", "{n} hours", math.ceil(seconds / 3600))
    return say_n("{n} day", "{n} days", math.ceil(seconds / 86400))


def client_key(host: str | None) -> str:
    """The client a limit counts by (wrong PINs, rooms made, codes tried): an IPv4 address, this
    machine's own address as it is, an IPv6 address's /64 (one household or machine has the whole
    /64), or the name a test client gives."""
    host = str(host or "unknown")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if ip.version == 4 or ip.is_loopback:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


class Locked(Exception):
    def __init__(self, seconds: float, everyone: bool):
        self.seconds = seconds
        if everyone:
            text = say("Too many wrong PINs from devices this server does not know: a new device may try again in "
                       "{wait}. The machine running warref, a paired device and a device that has given the right "
                       "PIN before keep working.", wait=wait_words(seconds))
        else:
            text = say("Too many wrong PINs from this device: try again in {wait}. A device that is already paired "
                       "keeps working.", wait=wait_words(seconds))
        super().__init__(text)
        self.text = text                  # the sentence as said (its message: each page's language)


class PinLimits:
    """Wrong PINs counted in the server's SQLite file (tables ``pin_clients``, ``pin_bucket``), so
    that the limits hold across restarts and across `--workers` (each process opens the same file,
    and each count is one transaction). ``db_path`` None: in memory (tests)."""

    def __init__(self, db_path: str | Path | None = None, now: Callable[[], float] = time.time, free: int = FREE,
                 overall: int = OVERALL, refill: float = REFILL):
        self.now = now
        self.free = free
        self.overall = overall
        self.refill = refill
        self.db = sqlite3.connect(str(db_path) if db_path else ":memory:", check_same_thread=False,
                                  isolation_level=None)
        self.db.execute("PRAGMA busy_timeout = 5000")
        self.db.execute("""CREATE TABLE IF NOT EXISTS pin_clients (
            client TEXT PRIMARY KEY,        -- the address a request came from
            wrong INTEGER NOT NULL,         -- wrong PINs since its last right one
            until REAL NOT NULL,            -- Unix time it may try again
            known INTEGER NOT NULL,         -- 1: it has given the right PIN
            seen REAL NOT NULL)""")
        self.db.execute("""CREATE TABLE IF NOT EXISTS pin_bucket (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            level REAL NOT NULL,            -- wrong PINs everyone may still make
            filled REAL NOT NULL)""")
        self.lock = threading.Lock()

    def _in_transaction(self, work: Callable[[Any, float], Any]) -> Any:
        with self.lock:
            cur = self.db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                out = work(cur, self.now())
                cur.execute("COMMIT")
                return out
            except BaseException:
                cur.execute("ROLLBACK")
                raise

    def _level(self, cur: Any, now: float) -> float:
        row = cur.execute("SELECT level, filled FROM pin_bucket WHERE id = 1").fetchone()
        level, filled = (float(self.overall), now) if row is None else row
        level = min(float(self.overall), level + max(0.0, now - filled) * self.refill / 3600)
        cur.execute("INSERT OR REPLACE INTO pin_bucket (id, level, filled) VALUES (1, ?, ?)", (level, now))
        return level

    @staticmethod
    def _client(cur: Any, client: str) -> tuple[int, float, bool]:
        row = cur.execute("SELECT wrong, until, known FROM pin_clients WHERE client = ?", (client,)).fetchone()
        return (0, 0.0, False) if row is None else (int(row[0]), float(row[1]), bool(row[2]))

    def check(self, client: str) -> None:
        """Locked if ``client`` must wait before a PIN is checked: its own wrong PINs, or (for a client
        this server does not know: never gave the right PIN, not this machine) everyone's."""
        def work(cur: Any, now: float) -> None:
            _, until, known = self._client(cur, client)
            if until > now:
                raise Locked(until - now, everyone=False)
            level = self._level(cur, now)
            if level < 1 and not known and client not in LOCAL:
                raise Locked((1 - level) * 3600 / self.refill, everyone=True)
        self._in_transaction(work)

    def wrong(self, client: str) -> float:
        """Count a wrong PIN; returns the wait it starts (0 while the client's free ones last)."""
        def work(cur: Any, now: float) -> float:
            level = self._level(cur, now)
            cur.execute("UPDATE pin_bucket SET level = ? WHERE id = 1", (level - 1,))
            count, _, known = self._client(cur, client)
            count += 1
            wait = 0.0 if count <= self.free else min(LONGEST_WAIT, FIRST_WAIT * 2 ** (count - self.free - 1))
            cur.execute("INSERT OR REPLACE INTO pin_clients (client, wrong, until, known, seen) VALUES (?, ?, ?, ?, ?)",
                        (client, count, now + wait, int(known), now))
            if cur.execute("SELECT COUNT(*) FROM pin_clients").fetchone()[0] > KEEP_CLIENTS:
                cur.execute("DELETE FROM pin_clients WHERE client IN (SELECT client FROM pin_clients WHERE known = 0 "
                            "AND until <= ? ORDER BY seen LIMIT ?)", (now, KEEP_CLIENTS // 2))
            return wait
        return self._in_transaction(work)

    def right(self, client: str) -> None:
        """A right PIN: the client's count is cleared and it is known from now on."""
        self._in_transaction(lambda cur, now: cur.execute(
            "INSERT OR REPLACE INTO pin_clients (client, wrong, until, known, seen) VALUES (?, 0, 0, 1, ?)",
            (client, now)))


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Devices:
    """Paired devices, in the server's SQLite file (table ``devices``)."""

    def __init__(self, db_path: str | Path, now: Callable[[], float] = time.time):
        self.now = now
        self.db = sqlite3.connect(str(db_path), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA busy_timeout = 5000")
        self.db.execute("""CREATE TABLE IF NOT EXISTS devices (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            token TEXT NOT NULL UNIQUE,     -- SHA-256 of the device token
            created REAL NOT NULL,
            last_seen REAL NOT NULL)""")
        self.lock = threading.Lock()

    def pair(self, name: str) -> tuple[dict[str, Any], str]:
        token = secrets.token_urlsafe(32)
        now = self.now()
        with self.lock:
            cur = self.db.execute("INSERT INTO devices (name, token, created, last_seen) VALUES (?, ?, ?, ?)",
                                  (name, _hash(token), now, now))
        return {"id": cur.lastrowid, "name": name, "created": now, "last_seen": now}, token

    def find(self, token: str | None) -> int | None:
        """The device id of ``token`` (its last use noted at most once a minute), else None."""
        if not token or len(token) > 200:
            return None
        with self.lock:
            row = self.db.execute("SELECT id, last_seen FROM devices WHERE token = ?", (_hash(token),)).fetchone()
            if row is None:
                return None
            if self.now() - row[1] > 60:
                self.db.execute("UPDATE devices SET last_seen = ? WHERE id = ?", (self.now(), row[0]))
            return int(row[0])

    def all(self) -> list[dict[str, Any]]:
        with self.lock:
            rows = self.db.execute("SELECT id, name, created, last_seen FROM devices ORDER BY id").fetchall()
        return [{"id": i, "name": n, "created": c, "last_seen": s} for i, n, c, s in rows]

    def revoke(self, device: int) -> bool:
        with self.lock:
            return self.db.execute("DELETE FROM devices WHERE id = ?", (device,)).rowcount > 0


def token_of(headers: Headers, cookies: dict[str, str]) -> str | None:
    return headers.get(HEADER) or cookies.get(COOKIE)


def lan_ip() -> str:
    """This machine's LAN address, found without sending anything (a UDP socket's connect only picks
    the route); 127.0.0.1 when there is no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 1))
            ip = s.getsockname()[0]
            return ip if ip and not ip.startswith("0.") else "127.0.0.1"
    except OSError:
        return "127.0.0.1"


def allowed_hosts(extra: Iterable[str] = (), public_url: str | None = None) -> list[str]:
    """This machine's names and addresses, and ``extra`` (``--allow-host``)."""
    hosts = {"localhost", "127.0.0.1", "::1", "[::1]"}
    name = socket.gethostname()
    hosts |= {name, f"{name}.local", socket.getfqdn()}
    try:
        hosts |= {info[4][0] for info in socket.getaddrinfo(name, None)}
    except OSError:
        pass
    hosts.add(lan_ip())
    if public_url:
        if urlsplit(public_url).hostname:
            hosts.add(urlsplit(public_url).hostname)
    hosts |= {h.strip() for h in extra if h and h.strip()}
    return sorted(h.lower() for h in hosts if h)


NAME = re.compile(r"^[a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})*\.?$")   # a DNS name (or IPv4 address), small letters
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def parse_host(value: str | None) -> tuple[str, int | None] | None:
    """A Host header's (or an origin's) ``host[:port]`` as (name in small letters without IPv6
    brackets, port or None); None when it is anything else (user info, text after the address, a
    bracket left open, a bad port). urllib.parse splits it; what it leaves over is refused."""
    text = (value or "").strip().lower()
    if not text or len(text) > 300 or any(c in text for c in "@/?#\\ \t"):
        return None
    try:
        parts = urlsplit("//" + text)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
        shown = f"[{host}]"
    elif NAME.match(host):
        shown = host
    else:
        return None
    return (host, port) if parts.netloc == shown + (f":{port}" if port is not None else "") else None


def host_of(header: str | None) -> str:
    """The name in a Host header, without its port or IPv6 brackets, in small letters ("" if it is
    not a host at all: ``parse_host``)."""
    parsed = parse_host(header)
    return parsed[0] if parsed else ""


def same_origin(origin: str | None, host: str | None, scheme: str) -> bool:
    """Whether a request's ``Origin`` is the page's own: the same scheme (http or https; ws and wss
    count as them), name and port (a scheme's default port filled in) as the request's ``Host``."""
    if not origin:
        return False
    try:
        parts = urlsplit(origin.strip().lower())
    except ValueError:
        return False
    own, theirs = parse_host(host), parse_host(parts.netloc)
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    if own is None or theirs is None or parts.scheme != scheme or parts.path not in ("", "/"):
        return False
    default = DEFAULT_PORTS.get(scheme)
    return own[0] == theirs[0] and (own[1] or default) == (theirs[1] or default)


SIMPLE_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")


def cookie_write_problem(method: str, headers: Headers, scheme: str) -> str | None:
    """Why a change authenticated by the device cookie alone (a browser's) is refused, else None: it
    must come from this dashboard's own pages (a same-origin ``Origin``) and carry a body type a
    page on another site cannot send without asking first (JSON, a photo's type), so that another
    site open in the same browser cannot make the change (cross-site request forgery)."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return None
    if not same_origin(headers.get("origin"), headers.get("host"), scheme):
        return say("A change from a browser must come from this dashboard's own pages.")
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if (kind in SIMPLE_TYPES or not kind) and headers.get("content-length", "0") not in ("0", ""):
        return say("Send the change as JSON (Content-Type: application/json).")
    return None


class HostCheck(TrustedHostMiddleware):
    """Starlette's TrustedHostMiddleware (HTTP and WebSocket), answering in a sentence."""

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allow_any:
            await self.app(scope, receive, send)
            return
        host = host_of(Headers(scope=scope).get("host"))
        if host and any(host == p.strip("[]") or (p.startswith("*.") and host.endswith(p[1:])) for p in self.allowed_hosts):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await JSONResponse({"detail": f"This server does not answer to the name {host or '(none)'!r}. Open it by "
                                      f"its own address, or start it with --allow-host {host or 'NAME'}."},
                           status_code=400)(scope, receive, send)


class SecurityHeaders:
    """Adds ``HEADERS`` to every HTTP answer."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k.encode(), v.encode()) for k, v in HEADERS.items() if k.encode() not in have]
            await send(message)

        await self.app(scope, receive, with_headers)
