"""`warref serve`: the tablet dashboard and its API, and what the camera commands share with it."""
from __future__ import annotations

import argparse
import datetime
import errno
import ipaddress
import json
import os
import secrets
import socket
from pathlib import Path

from referee.say import say, to_translate

from ..i18n import say_in
from ..system_words import os_words, system_words
from .common import fail, lang_flag, language, why

WS_MAX = 16 * 1024       # the largest WebSocket frame uvicorn reads: viewers send nothing that matters
# helps `warref run` (and `demo`) shares
DB_HELP = to_translate("the SQLite database of games (default ./warref.db)")
PIN_HELP = to_translate("the PIN for changing the game (default: $WARREF_PIN, else random 4 digits)")
PRINTS_HERE = to_translate("the language of what it prints here (each screen chooses its own)")


def port_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host``:``port`` (tried with a socket bound and closed at
    once, as uvicorn will bind it), or None."""
    if not 0 < port < 65536:
        return say("--port {port}: give a port from 1 to 65535", port=port)
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        return say("--host {host}: {why}", host=host, why=os_words(err))
    for family, kind, proto, _, address in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as uvicorn (asyncio) does
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return say("port {port} is in use (another warref?); choose another with --port N", port=port)
            return say("cannot listen on {host}:{port} ({why}); choose another --host or --port", host=host, port=port,
                       why=os_words(err))
        finally:
            sock.close()
    return None


def _certificate(folder: Path, ip: str) -> tuple[Path, Path]:
    """A local self-signed certificate for --https, made once and kept beside the database."""
    cert, key = folder / "warref-cert.pem", folder / "warref-key.pem"
    if cert.exists() and key.exists():
        return cert, key
    # imported here: cryptography is slow to start (`warref --help` stays fast)
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "warref dashboard")])
    now = datetime.datetime.now(datetime.timezone.utc)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    if ip != "127.0.0.1":
        names.append(x509.IPAddress(ipaddress.ip_address(ip)))
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                   .public_key(private.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=3650))
                   .add_extension(x509.SubjectAlternativeName(names), critical=False)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .sign(private, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    key.write_bytes(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    os.chmod(key, 0o600)
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return cert, key


def cmd_serve(args: argparse.Namespace) -> int:
    lang = language("serve", args.lang)
    if lang is None:
        return 2
    pin = str(args.pin or os.environ.get("WARREF_PIN") or f"{secrets.randbelow(10000):04d}").strip()
    if not pin:
        return fail("serve", say("the PIN cannot be empty"), lang)
    if args.npc_pause is not None and not 0 <= args.npc_pause <= 60:
        return fail("serve", say("--npc-pause is seconds from 0 to 60"), lang)
    problem = port_problem(args.host, args.port)
    if problem:
        return fail("serve", problem, lang)
    # imported here: uvicorn and the server (FastAPI; starlette for web.guard) are slow to start (`warref --help`
    # stays fast)
    import uvicorn
    from web.guard import lan_ip
    from web.server import SETTINGS_VARIABLE, create_app

    db = Path(args.db)
    ip = lan_ip() if args.host in ("0.0.0.0", "::", "") else args.host
    scheme = "https" if args.https else "http"
    url = f"{scheme}://{ip}:{args.port}"
    ssl: dict[str, str] = {}
    if args.https:
        cert, key = _certificate(db.resolve().parent, ip)
        ssl = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
    if args.workers > 1 and not args.redis:
        return fail("serve", say("--workers N shares rooms between processes through Redis: give --redis URL too"),
                    lang)
    settings = {"db_path": str(db), "pin": pin, "public_url": url, "hosts": hosts(args, url), "redis_url": args.redis,
                **({"npc_pause": args.npc_pause} if args.npc_pause is not None else {})}   # else rooms.NPC_PAUSE_S
    try:
        app = create_app(**settings)
    except Exception as err:  # a damaged database, one whose log no longer plays, Redis unreachable
        return fail("serve", why(err) if args.redis and "Redis" in str(err) else
                    say("cannot open {db}: {why}", db=str(db), why=system_words(err)), lang)
    print(say_in(say("warref dashboard: {url}  (database {db})", url=url, db=str(db)), lang))
    print(say_in(say("PIN for changing the game: {pin}", pin=pin), lang))
    if not args.no_qr:
        try:
            import segno        # imported here: slow to start (`warref --help` stays fast)
            segno.make(url, error="m").terminal(compact=True)
        except Exception:   # a terminal that cannot show it: the address above is enough
            pass
    qr = url + "/api/qr.svg"
    print(say_in(say("QR code also at {url}", url=qr), lang), flush=True)
    # the client is the socket's address (PIN limits count by it) unless a proxy is named
    proxy = {"proxy_headers": bool(args.forwarded_allow_ips), "forwarded_allow_ips": args.forwarded_allow_ips}
    if args.workers > 1:          # each worker process builds its own app from the same settings
        os.environ[SETTINGS_VARIABLE] = json.dumps(settings)
        uvicorn.run("web.server:app_from_environment", factory=True, workers=args.workers, host=args.host,
                    port=args.port, log_level=args.log_level, ws_max_size=WS_MAX, **proxy, **ssl)
        return 0
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=WS_MAX, **proxy, **ssl)
    return 0


def hosts(args: argparse.Namespace, url: str) -> list[str]:
    """The names the dashboard answers to: this machine's, --host's, and each --allow-host."""
    from web.guard import allowed_hosts     # imported here: slow to start (Starlette; `warref --help` stays fast)
    extra = list(args.allow_host or [])
    if args.host not in ("0.0.0.0", "::", ""):
        extra.append(args.host)
    return allowed_hosts(extra, public_url=url)


def allow_host_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-host", action="append", metavar="NAME",
                   help=to_translate("also answer to this name (a DNS name or address that points here); "
                                     "the machine's own names and addresses are always allowed; repeat for several"))


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help=to_translate("serve the tablet dashboard and its API (docs/dashboard-api.md)"))
    p.add_argument("--host", default="0.0.0.0", help=to_translate("address to listen on (default: every interface)"))
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default="warref.db", help=DB_HELP)
    p.add_argument("--pin", help=PIN_HELP)
    p.add_argument("--https", action="store_true",
                   help=to_translate("serve HTTPS with a local self-signed certificate kept beside the database"))
    p.add_argument("--no-qr", action="store_true", help=to_translate("do not print the QR code in the terminal"))
    p.add_argument("--log-level", default="warning", help=to_translate("uvicorn's log level (default warning)"))
    p.add_argument("--redis", metavar="URL",
                   help=to_translate("share Guerra rooms with other server processes through this Redis "
                                     "(redis://host:6379/0)"))
    p.add_argument("--workers", type=int, default=1,
                   help=to_translate("server processes on this address, sharing rooms through --redis (default 1)"))
    p.add_argument("--forwarded-allow-ips", metavar="ADDRESSES",
                   help=to_translate("behind a reverse proxy: the proxy's addresses (comma-separated), whose "
                                     "X-Forwarded-For names the client; without it the client is the connection's "
                                     "own address"))
    p.add_argument("--npc-pause", type=float, metavar="SECONDS",
                   help=to_translate("how long a room's NPC waits before each move, so the players see it (default 1)"))
    allow_host_flag(p)
    lang_flag(p, PRINTS_HERE)
    p.set_defaults(func=cmd_serve)
