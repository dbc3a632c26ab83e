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
import sys
from pathlib import Path

WS_MAX = 16 * 1024       # the largest WebSocket frame uvicorn reads: viewers send nothing that matters


def port_problem(host: str, port: int, prog: str) -> str | None:
    """Why the server could not listen on ``host``:``port`` (tried with a socket bound and closed at
    once, as uvicorn will bind it), or None."""
    if not 0 < port < 65536:
        return f"warref {prog}: --port {port}: give a port from 1 to 65535"
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        return f"warref {prog}: --host {host}: {err.strerror or err}"
    for family, kind, proto, _, address in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as uvicorn (asyncio) does
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return f"warref {prog}: port {port} is in use (another warref?); choose another with --port N"
            return (f"warref {prog}: cannot listen on {host}:{port} ({err.strerror or err}); "
                    f"choose another --host or --port")
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
    pin = str(args.pin or os.environ.get("WARREF_PIN") or f"{secrets.randbelow(10000):04d}").strip()
    if not pin:
        print("warref serve: the PIN cannot be empty", file=sys.stderr)
        return 2
    problem = port_problem(args.host, args.port, "serve")
    if problem:
        print(problem, file=sys.stderr)
        return 2
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
        print("warref serve: --workers N shares rooms between processes through Redis: give --redis URL too",
              file=sys.stderr)
        return 2
    settings = {"db_path": str(db), "pin": pin, "public_url": url, "hosts": hosts(args, url), "redis_url": args.redis}
    try:
        app = create_app(**settings)
    except Exception as err:  # a damaged database, one whose log no longer plays, Redis unreachable
        print(f"warref serve: {err}" if args.redis and "Redis" in str(err) else f"warref serve: cannot open {db}: {err}",
              file=sys.stderr)
        return 2
    print(f"warref dashboard: {url}  (database {db})")
    print(f"PIN for changing the game: {pin}")
    if not args.no_qr:
        try:
            import segno        # imported here: slow to start (`warref --help` stays fast)
            segno.make(url, error="m").terminal(compact=True)
        except Exception:   # a terminal that cannot show it: the address above is enough
            pass
    print(f"QR code also at {url}/api/qr.svg", flush=True)
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
                   help="also answer to this name (a DNS name or address that points here); "
                        "the machine's own names and addresses are always allowed; repeat for several")


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve the tablet dashboard and its API (docs/dashboard-api.md)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default="warref.db", help="the SQLite database of games (default ./warref.db)")
    p.add_argument("--pin", help="the PIN for changing the game (default: $WARREF_PIN, else random 4 digits)")
    p.add_argument("--https", action="store_true",
                   help="serve HTTPS with a local self-signed certificate kept beside the database")
    p.add_argument("--no-qr", action="store_true", help="do not print the QR code in the terminal")
    p.add_argument("--log-level", default="warning", help="uvicorn's log level (default warning)")
    p.add_argument("--redis", metavar="URL",
                   help="share Guerra rooms with other server processes through this Redis (redis://host:6379/0)")
    p.add_argument("--workers", type=int, default=1,
                   help="server processes on this address, sharing rooms through --redis (default 1)")
    p.add_argument("--forwarded-allow-ips", metavar="ADDRESSES",
                   help="behind a reverse proxy: the proxy's addresses (comma-separated), whose X-Forwarded-For "
                        "names the client; without it the client is the connection's own address")
    allow_host_flag(p)
    p.set_defaults(func=cmd_serve)
